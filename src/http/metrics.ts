// GET /metrics: Prometheus text made by prom-client, for the operator (admin token). Counters and
// histograms on the request path are in-memory increments; what the database knows (jobs by state,
// webhook deliveries, ledger totals) is read when Prometheus scrapes, each query raced against a
// timeout so a slow database makes a scrape answer without those gauges rather than hang.
import type { Request, Response } from 'express';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Services } from '../platform/service-registry.js';
import { withDeadline } from '../platform/deadline.js';

export type MetricsServices = Pick<Services, 'db' | 'generation' | 'logger'>;

/** How long the scrape-time database reads may take together before they are left out. */
export const SCRAPE_DB_TIMEOUT_MS = 2_000;

/**
 * The route label of a request, never the raw path: the REST row that answered it (the shim names
 * it in res.locals), else the pattern Express matched (`/gallery/:token`), else `unmatched`.
 */
export function routeLabel(req: Request, res: Response): string {
  const row = res.locals.routePattern as string | undefined;
  if (row) return row;
  const pattern = req.route?.path;
  return typeof pattern === 'string' ? `${req.baseUrl}${pattern}` : 'unmatched';
}

export interface ServiceMetrics {
  registry: Registry;
  /** Counts one finished request (called by the request log, which already timed it). */
  observeRequest(req: Request, res: Response, durationMs: number): void;
}

export function createMetrics(services: MetricsServices): ServiceMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });

  const requests = new Counter({ name: 'http_requests_total', help: 'HTTP requests by method, route pattern and status', labelNames: ['method', 'route', 'status'], registers: [registry] });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency by method and route pattern',
    labelNames: ['method', 'route'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  const providerCalls = new Counter({ name: 'generation_provider_calls_total', help: 'Image generation provider calls by provider and outcome (ok, failed, cooling: passed over while its circuit is open)', labelNames: ['provider', 'outcome'], registers: [registry] });
  const chain = services.generation.chain;
  chain.onCall = (provider, outcome) => providerCalls.inc({ provider, outcome });
  new Gauge({
    name: 'generation_provider_circuit_state',
    help: 'Circuit breaker of each generation provider: 1 on the state it is in (closed, open, half_open)',
    labelNames: ['provider', 'state'],
    registers: [registry],
    collect() {
      this.reset();
      for (const { name, state } of chain.states()) for (const s of ['closed', 'open', 'half_open'] as const) this.set({ provider: name, state: s }, s === state ? 1 : 0);
    },
  });

  // One database read per scrape feeds the three database gauges.
  let pending: Promise<DatabaseFigures | null> | null = null;
  const figures = () => (pending ??= readFigures(services).finally(() => setTimeout(() => (pending = null), 0)));
  new Gauge({
    name: 'jobs',
    help: 'Job rows by state (read from the database at scrape time)',
    labelNames: ['state'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const row of (await figures())?.jobs ?? []) this.set({ state: row.state }, Number(row.n));
    },
  });
  new Gauge({
    name: 'job_queue_depth',
    help: 'Jobs waiting to be claimed (state queued)',
    registers: [registry],
    async collect() {
      this.reset();
      const f = await figures();
      if (f) this.set(Number(f.jobs.find((r) => r.state === 'queued')?.n ?? 0));
    },
  });
  new Gauge({
    name: 'webhook_deliveries',
    help: 'Webhook deliveries by outcome: pending (to be sent or retried), delivered, failed (gave up)',
    labelNames: ['state'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const row of (await figures())?.deliveries ?? []) this.set({ state: row.state }, Number(row.n));
    },
  });
  new Gauge({
    name: 'ledger_posted_balance',
    help: 'Posted balance (credits minus debits) by currency, summed over accounts owned by users (holder=accounts) or over the system accounts (holder=system)',
    labelNames: ['currency', 'holder'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const row of (await figures())?.ledger ?? []) this.set({ currency: row.currency, holder: row.holder }, Number(row.balance));
    },
  });

  return {
    registry,
    observeRequest(req, res, durationMs) {
      const route = routeLabel(req, res);
      requests.inc({ method: req.method, route, status: String(res.statusCode) });
      duration.observe({ method: req.method, route }, durationMs / 1000);
    },
  };
}

interface DatabaseFigures {
  jobs: Array<{ state: string; n: string | number }>;
  deliveries: Array<{ state: string; n: string | number }>;
  ledger: Array<{ currency: string; holder: string; balance: string | number }>;
}

async function readFigures(services: MetricsServices): Promise<DatabaseFigures | null> {
  try {
    return await withDeadline(
      (async () => ({
        jobs: await services.db.query<{ state: string; n: string }>('SELECT state::text AS state, count(*) AS n FROM "Job" GROUP BY state'),
        deliveries: await services.db.query<{ state: string; n: string }>('SELECT state::text AS state, count(*) AS n FROM "WebhookDelivery" GROUP BY state'),
        ledger: await services.db.query<{ currency: string; holder: string; balance: string }>(
          `SELECT currency::text AS currency, CASE WHEN "ownerId" IS NULL THEN 'system' ELSE 'accounts' END AS holder,
                  sum("creditsPosted" - "debitsPosted")::text AS balance
             FROM "LedgerAccount" GROUP BY 1, 2`,
        ),
      }))(),
      SCRAPE_DB_TIMEOUT_MS,
      'the database',
    );
  } catch (error) {
    services.logger.warn({ err: error }, 'metrics: the database figures were left out of this scrape');
    return null;
  }
}
