// Webhooks (spec "Automation", "Events"): registration, the test delivery, and the outbox.
// A finishing job writes one delivery row per subscribed webhook inside its own transaction (so no
// event is lost to a crash), and the deliverer loop sends due rows: it claims them with
// FOR UPDATE SKIP LOCKED, which also pushes their next attempt one lease ahead, so several
// processes never send one row at the same time and a row whose sender died is tried again.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { Database } from '../../platform/database/database.js';
import { AppError, Conflict, InvalidInput } from '../../platform/errors.js';
import { createWithinCap } from '../../platform/database/caps.js';
import type { Logger } from '../../platform/logger.js';
import { parseInput } from '../../platform/validation.js';
import { FetchRefused, type SafeFetcher } from '../../platform/http/safe-fetch.js';
import { hostRefusal, type PrivateAddressAllowance } from '../../platform/http/address-policy.js';
import type { Prisma, Webhook, WebhookDelivery } from '../../generated/prisma/client.js';
import type { Actor } from '../accounts/index.js';
import { webhookPolicy } from './automation.access.js';
import type { Job } from '../jobs/index.js';
import type { CredentialBox } from './exports/credential-box.js';
import { TEST_EVENT, WEBHOOK_EVENTS, deliveryHeaders, envelope, isWebhookEvent, jobEventData, jobEventType } from './webhook-events.js';

export type { Webhook, WebhookDelivery };

export const WEBHOOK_DELIVERY_STATES = ['pending', 'delivered', 'failed'] as const;

export interface WebhooksOptions {
  allowHttp: boolean;
  timeoutMs: number;
  retryDelaysMs: number[];
  perAccount: number;
  /** The fetcher's allowance, applied to IP literals at registration too. */
  allowPrivateAddresses: PrivateAddressAllowance;
  publicBaseUrl?: string;
}

/** Receivers' answers are not read; a little is allowed before the connection is dropped. */
const RESPONSE_BYTES = 64 * 1024;
/** Deliveries one claim takes; they are sent in parallel. */
const BATCH = 10;
/** Each delay is stretched or shrunk by up to this fraction, so retries of many rows spread out. */
const JITTER = 0.2;

function urlProblem(value: string, options: WebhooksOptions): string | null {
  if (!URL.canParse(value)) return 'expected an absolute https:// URL';
  const url = new URL(value);
  if (url.protocol === 'http:' && !options.allowHttp) return 'expected an https:// URL (plain http is refused unless the service sets WEBHOOK_ALLOW_HTTP=true)';
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'expected an https:// URL';
  if (url.username || url.password) return 'URLs with credentials (user:password@) are not allowed';
  const refusal = hostRefusal(url.hostname, options.allowPrivateAddresses);
  return refusal ? `refused: ${refusal}` : null;
}

const URL_REQUIRED = 'url is required: the HTTPS endpoint deliveries are posted to';

/** A receiver's URL as text; the service adds its address policy (urlProblem), which hangs on its options. */
export const webhookUrlSchema = z
  .string({ error: URL_REQUIRED })
  .trim()
  .min(1, URL_REQUIRED)
  .max(2048, 'expected at most 2048 characters')
  .describe('an https:// URL (http only where the service sets WEBHOOK_ALLOW_HTTP=true)');

export const secretSchema = z
  .string({ error: 'expected a string' })
  .min(1, 'expected at least 1 character (or leave it out)')
  .max(256, 'expected at most 256 characters')
  .describe('signs deliveries: HMAC-SHA256 in the X-Service-Signature header');

export const eventsSchema = z
  .array(z.string({ error: 'expected an event type name (a string)' }), { error: `expected an array of event types (${WEBHOOK_EVENTS.join(', ')})` })
  .optional()
  .transform((names, ctx) => {
    if (names === undefined) return [];
    const unknown = names.filter((n) => !isWebhookEvent(n.trim()));
    if (unknown.length > 0) {
      ctx.addIssue({ code: 'custom', message: `unknown event type ${unknown.map((n) => JSON.stringify(n)).join(', ')}; expected some of ${WEBHOOK_EVENTS.join(', ')}` });
      return z.NEVER;
    }
    if (names.length === 0) {
      ctx.addIssue({ code: 'custom', message: `expected at least one of ${WEBHOOK_EVENTS.join(', ')}; leave events out to subscribe to all` });
      return z.NEVER;
    }
    const wanted = new Set(names.map((n) => n.trim()));
    // Every type listed is stored as "all", so types added later reach it too.
    return wanted.size === WEBHOOK_EVENTS.length ? [] : WEBHOOK_EVENTS.filter((e) => wanted.has(e));
  })
  .describe(`event types to receive: some of ${WEBHOOK_EVENTS.join(', ')} (default all)`);

/** A webhook's registration (REST body, GraphQL CreateWebhookInput); the service adds its URL policy. */
export const createWebhookSchema = z.object({ url: webhookUrlSchema, secret: secretSchema.optional(), events: eventsSchema });
/** A test delivery's target. */
export const testWebhookSchema = createWebhookSchema.pick({ url: true, secret: true });

/** Filters of a webhook's delivery log. */
export const deliveriesFilterSchema = z.object({
  status: z.enum(WEBHOOK_DELIVERY_STATES, { error: `expected ${WEBHOOK_DELIVERY_STATES.join(', ')}` }).optional(),
});

/** The delivery log's `where` for these filters (checked here, for GraphQL and REST alike). */
export function deliveriesWhere(input: z.input<typeof deliveriesFilterSchema>): Prisma.WebhookDeliveryWhereInput {
  const { status } = parseInput(deliveriesFilterSchema, input);
  return status ? { state: status } : {};
}

/** Page sizes of the webhook list and of a delivery log (GraphQL connections and REST `limit`). */
export const WEBHOOKS_PAGE = { defaultSize: 100, maxSize: 200 } as const;
export const DELIVERIES_PAGE = { defaultSize: 50, maxSize: 200 } as const;

export interface CreateWebhookInput {
  url?: string;
  secret?: string;
  events?: string[];
}

export interface WebhookTestResult {
  deliveryId: string;
  event: string;
  delivered: boolean;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

interface SendResult {
  ok: boolean;
  statusCode: number | null;
  error: string | null;
  /** Why the address was refused when connecting (a name that resolved to a private address). */
  refused?: string;
}

type StoredSecret = Pick<Webhook, 'id' | 'secret' | 'sealedSecret'>;

/** What a webhook's sealed secret is bound to, so it opens only on its own row. */
function sealedFor(webhookId: number): string {
  return `webhook:${webhookId}`;
}

/** Whether deliveries to the webhook are signed (the secret itself is never shown). */
export function hasSigningSecret(webhook: Pick<Webhook, 'secret' | 'sealedSecret'>): boolean {
  return webhook.sealedSecret !== null || webhook.secret !== null;
}

/** The events a stored row receives: an empty list means all of them. */
export function subscribedEvents(webhook: Pick<Webhook, 'events'>): string[] {
  return webhook.events.length === 0 ? [...WEBHOOK_EVENTS] : webhook.events;
}

export class WebhooksService {
  private readonly createSchema;
  private readonly testSchema;

  constructor(
    private readonly db: Database,
    private readonly fetcher: SafeFetcher,
    private readonly logger: Logger,
    private readonly box: CredentialBox,
    private readonly options: WebhooksOptions,
  ) {
    const url = webhookUrlSchema.superRefine((value, ctx) => {
      const problem = urlProblem(value, options);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    });
    this.createSchema = createWebhookSchema.extend({ url });
    this.testSchema = testWebhookSchema.extend({ url });
  }

  /**
   * Seals the signing secrets stored in plain text before they were sealed (the
   * 20261127120000_sealed_webhook_secrets migration added the column; the key is the application's,
   * so the rows are sealed here, at start). Idempotent, and safe with several processes starting at
   * once: a row is changed only while its plain secret is still the one read.
   */
  async sealPlaintextSecrets(): Promise<number> {
    const plain = await this.db.prisma.webhook.findMany({ where: { secret: { not: null } }, select: { id: true, secret: true } });
    let sealed = 0;
    for (const row of plain) {
      const { count } = await this.db.prisma.webhook.updateMany({
        where: { id: row.id, secret: row.secret },
        data: { sealedSecret: this.box.seal(sealedFor(row.id), row.secret!), secret: null },
      });
      sealed += count;
    }
    return sealed;
  }

  /** The secret deliveries are signed with: null for none, undefined when the sealed one does not open. */
  private signingSecret(webhook: StoredSecret): string | null | undefined {
    if (webhook.sealedSecret !== null) return this.box.open(sealedFor(webhook.id), webhook.sealedSecret) ?? undefined;
    // A row not sealed yet (written before sealing, sealed at the next start).
    return webhook.secret;
  }

  /** Attempts a delivery gets in all: the first plus one per retry delay. */
  get maxAttempts(): number {
    return this.options.retryDelaysMs.length + 1;
  }

  async create(actor: Actor, input: CreateWebhookInput): Promise<Webhook> {
    webhookPolicy.checkKey(actor);
    const data = parseInput(this.createSchema, input);
    return createWithinCap(this.db, {
      name: 'webhooks',
      ownerId: actor.accountId,
      limit: this.options.perAccount,
      count: (tx) => tx.webhook.count({ where: { accountId: actor.accountId } }),
      refuse: (count) => new Conflict(`this account already has ${count} webhooks (the limit is ${this.options.perAccount}); delete one first`),
      create: async (tx) => {
        const webhook = await tx.webhook.create({ data: { accountId: actor.accountId, url: data.url, events: data.events } });
        // Sealed bound to the row's id, which exists only now.
        if (!data.secret) return webhook;
        return tx.webhook.update({ where: { id: webhook.id }, data: { sealedSecret: this.box.seal(sealedFor(webhook.id), data.secret) } });
      },
    });
  }

  /** The caller's webhook; another account's is a 404, exactly like a missing one. */
  async getOwned(actor: Actor | null, id: number, query: Pick<Prisma.WebhookFindFirstArgs, 'select' | 'include'> = {}): Promise<Webhook> {
    return webhookPolicy.findOne(actor, id, (where) => this.db.prisma.webhook.findFirst({ ...query, where }) as Promise<Webhook | null>);
  }

  /** Deletes the webhook and its delivery log; pending deliveries are not sent. */
  delete(actor: Actor, id: number): Promise<{ id: number }> {
    return webhookPolicy.deleteOne(actor, id, (where) => this.db.prisma.webhook.deleteMany({ where }));
  }

  /** Posts a `webhook.test` payload to `url` now and reports what the receiver answered. */
  async test(actor: Actor, input: { url?: string; secret?: string }): Promise<WebhookTestResult> {
    webhookPolicy.checkKey(actor);
    const data = parseInput(this.testSchema, input);
    const payload = envelope(TEST_EVENT, { message: 'test delivery: your endpoint is reachable', account: actor.handle });
    const started = Date.now();
    const result = await this.send(data.url, { id: payload.id, event: TEST_EVENT, body: payload.body, secret: data.secret ?? null });
    // The name resolved to an address we may not reach: the caller's URL is refused, not unreachable.
    if (result.refused) throw new InvalidInput(`url: refused: ${result.refused}`, 'url');
    return { deliveryId: payload.id, event: TEST_EVENT, delivered: result.ok, statusCode: result.statusCode, error: result.error, durationMs: Date.now() - started };
  }

  /** JobsService.onFinished: one delivery row per subscribed webhook, in the finishing transaction. */
  async enqueueJobEvent(job: Job, tx: Prisma.TransactionClient): Promise<void> {
    const type = jobEventType(job);
    if (!type) return;
    const hooks = await tx.webhook.findMany({
      where: { accountId: job.accountId, OR: [{ events: { isEmpty: true } }, { events: { has: type } }] },
      select: { id: true },
    });
    if (hooks.length === 0) return;
    const data = jobEventData(job, await tx.asset.count({ where: { jobId: job.id } }), this.options.publicBaseUrl);
    const now = new Date();
    await tx.webhookDelivery.createMany({
      data: hooks.map((hook) => {
        const payload = envelope(type, data, now);
        return { deliveryId: payload.id, webhookId: hook.id, event: type, jobId: job.id, body: payload.body, nextAttemptAt: now };
      }),
    });
  }

  /** Sends every due delivery (in batches); returns how many attempts were made. */
  async deliverDue(): Promise<number> {
    let total = 0;
    for (;;) {
      const sent = await this.deliverBatch();
      total += sent;
      if (sent < BATCH) return total;
    }
  }

  private async deliverBatch(): Promise<number> {
    const token = randomUUID();
    // Longer than one attempt can take, so a live sender always finishes before the row is due again.
    const leaseMs = this.options.timeoutMs + 30_000;
    const claimed = await this.db.query<{ id: number }>(
      `UPDATE "WebhookDelivery" SET attempts = attempts + 1, "claimToken" = $1,
              "lastAttemptAt" = now() AT TIME ZONE 'UTC',
              "nextAttemptAt" = (now() AT TIME ZONE 'UTC') + ($2::int * interval '1 millisecond')
       WHERE id IN (SELECT id FROM "WebhookDelivery"
                    WHERE state = 'pending' AND "nextAttemptAt" <= now() AT TIME ZONE 'UTC'
                    ORDER BY "nextAttemptAt", id LIMIT $3 FOR UPDATE SKIP LOCKED)
       RETURNING id`,
      [token, leaseMs, BATCH],
    );
    if (claimed.length === 0) return 0;
    const deliveries = await this.db.prisma.webhookDelivery.findMany({
      where: { id: { in: claimed.map((row) => row.id) }, claimToken: token },
      include: { webhook: { select: { id: true, url: true, secret: true, sealedSecret: true } } },
    });
    await Promise.all(deliveries.map((delivery) => this.attempt(delivery, token)));
    return claimed.length;
  }

  private async attempt(delivery: WebhookDelivery & { webhook: StoredSecret & { url: string } }, token: string): Promise<void> {
    const secret = this.signingSecret(delivery.webhook);
    // A secret that does not open is never replaced by an unsigned delivery.
    const result: SendResult =
      secret === undefined
        ? { ok: false, statusCode: null, error: "the webhook's signing secret does not open with this service's key (EXPORT_SECRET_KEY must be the same on every process)" }
        : await this.send(delivery.webhook.url, { id: delivery.deliveryId, event: delivery.event, body: delivery.body, secret });
    const base = { lastStatusCode: result.statusCode, lastError: result.error, claimToken: null };
    let data: Prisma.WebhookDeliveryUpdateManyMutationInput;
    if (result.ok) {
      data = { ...base, state: 'delivered', deliveredAt: new Date(), nextAttemptAt: null };
    } else if (delivery.attempts >= this.maxAttempts) {
      data = { ...base, state: 'failed', nextAttemptAt: null };
      this.logger.warn({ webhookId: delivery.webhookId, deliveryId: delivery.deliveryId, attempts: delivery.attempts }, 'webhook delivery failed for good');
    } else {
      data = { ...base, nextAttemptAt: new Date(Date.now() + retryDelay(this.options.retryDelaysMs, delivery.attempts)) };
    }
    // Only while the claim is still ours (a row whose lease ran out may have been claimed again).
    await this.db.prisma.webhookDelivery.updateMany({ where: { id: delivery.id, claimToken: token }, data });
  }

  private async send(url: string, delivery: { id: string; event: string; body: string; secret: string | null }): Promise<SendResult> {
    try {
      const response = await this.fetcher.stream(url, {
        method: 'POST',
        headers: deliveryHeaders(delivery),
        body: delivery.body,
        timeoutMs: this.options.timeoutMs,
        maxBytes: RESPONSE_BYTES,
        // A redirected POST would lose its body; a 3xx counts as a failed attempt.
        maxRedirects: 0,
      });
      response.body.on('error', () => {});
      response.body.destroy();
      const ok = response.status >= 200 && response.status < 300;
      return { ok, statusCode: response.status, error: ok ? null : `the receiver answered ${response.status}` };
    } catch (error) {
      if (error instanceof FetchRefused) return { ok: false, statusCode: null, error: error.message, refused: error.reason };
      if (error instanceof AppError) return { ok: false, statusCode: null, error: error.message };
      this.logger.error({ err: error }, 'sending a webhook failed unexpectedly');
      return { ok: false, statusCode: null, error: 'sending failed unexpectedly; see the service log' };
    }
  }
}

/** The wait after failed attempt number `attempt` (1-based), with jitter. */
export function retryDelay(delaysMs: readonly number[], attempt: number, random = Math.random): number {
  const base = delaysMs[Math.min(attempt, delaysMs.length) - 1] ?? 0;
  return Math.round(base * (1 - JITTER + 2 * JITTER * random()));
}

