// The money benchmark's load generator (bench/money.bench.ts), in a child process of its own so its
// CPU never counts against the service measured. Reads one job as JSON from argv[2], prints one
// result line as JSON. Jobs:
//   - http: `callers` loops, caller i sending `method` (POST unless given; a GET carries no body) to
//     `paths[i]` with `keys[i]` (when given) and `body` for `seconds`
//     over a keep-alive connection of its own (undici's Pool); `{n}` in a path: the caller's request
//     count, so each request can name something new;
//     every answer's status and JSON body is returned when `keepAnswers` (the hot-account check);
//   - pg: the bare transfer the routes are measured against, straight from node-pg (pool of 10):
//     BEGIN; two wallet UPDATEs; an INSERT of the transfer; COMMIT, caller i between its own two wallets.
import pg from 'pg';
import { Pool } from 'undici';

interface Job {
  kind: 'http' | 'pg';
  seconds: number;
  warmupSeconds: number;
  callers: number;
  /** http */
  base?: string;
  /** POST unless given. */
  method?: 'GET' | 'POST';
  paths?: string[];
  keys?: string[];
  body?: unknown;
  keepAnswers?: boolean;
  /** pg */
  databaseUrl?: string;
}

export interface LoadOutcome {
  /** Requests answered in the measured window. */
  requests: number;
  /** Requests answered in all (warm-up, window and the last ones out): what the service's CPU paid for. */
  total: number;
  perSecond: number;
  p50: number;
  p95: number;
  /** Answers that were not 2xx (http) or failed statements (pg), by status. */
  refused: Record<string, number>;
  answers?: Array<{ status: number; body: unknown }>;
}

const job = JSON.parse(process.argv[2]!) as Job;

async function timed(step: (caller: number) => Promise<{ status: number; body?: unknown }>): Promise<LoadOutcome> {
  const latencies: number[] = [];
  const refused: Record<string, number> = {};
  const answers: Array<{ status: number; body: unknown }> = [];
  let measuring = false;
  let stop = false;
  let total = 0;
  const loop = async (caller: number) => {
    while (!stop) {
      const started = performance.now();
      const outcome = await step(caller);
      total++;
      // Every answer is kept for the hot-account check, the warm-up's too: they all moved money.
      if (job.keepAnswers) answers.push({ status: outcome.status, body: outcome.body });
      if (!measuring) continue;
      latencies.push(performance.now() - started);
      if (outcome.status >= 300) refused[outcome.status] = (refused[outcome.status] ?? 0) + 1;
    }
  };
  const loops = Array.from({ length: job.callers }, (_, i) => loop(i));
  await new Promise((resolve) => setTimeout(resolve, job.warmupSeconds * 1000));
  measuring = true;
  const started = performance.now();
  await new Promise((resolve) => setTimeout(resolve, job.seconds * 1000));
  const elapsed = (performance.now() - started) / 1000;
  stop = true;
  // Answers that arrive after the window still count for the hot-account check (they moved money).
  await Promise.all(loops);
  const count = latencies.length;
  latencies.sort((a, b) => a - b);
  return {
    requests: count,
    total,
    perSecond: count / elapsed,
    p50: latencies[Math.floor(count * 0.5)] ?? 0,
    p95: latencies[Math.floor(count * 0.95)] ?? 0,
    refused,
    ...(job.keepAnswers ? { answers } : {}),
  };
}

async function http(): Promise<LoadOutcome> {
  const method = job.method ?? 'POST';
  const body = method === 'GET' ? undefined : JSON.stringify(job.body ?? {});
  const sent = new Array<number>(job.callers).fill(0);
  // undici's Pool, a connection per caller: fetch() (built on undici too) spent about 0.9 ms of this
  // process's CPU per request, which on a 2-core machine is taken from the service measured (the
  // bare transfer's client spends about 0.3 ms per transfer); the Pool about 0.26 ms. The request is
  // the one fetch sent (the same headers, so compression and the rest do the same work).
  const pool = new Pool(job.base!, { connections: job.callers, pipelining: 1 });
  try {
    return await timed(async (caller) => {
      try {
        const response = await pool.request({
          method,
          path: job.paths![caller]!.replace('{n}', String(sent[caller]!++)),
          headers: {
            ...(job.keys ? { 'x-api-key': job.keys[caller]! } : {}),
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
            accept: '*/*',
            'accept-encoding': 'gzip, deflate',
            'user-agent': 'node',
          },
          body,
        });
        const text = await response.body.text();
        return { status: response.statusCode, body: job.keepAnswers ? JSON.parse(text) : undefined };
      } catch {
        return { status: 599 };
      }
    });
  } finally {
    await pool.close();
  }
}

async function bare(): Promise<LoadOutcome> {
  const pool = new pg.Pool({ connectionString: job.databaseUrl, max: 10 });
  await pool.query(`CREATE TABLE IF NOT EXISTS bench_wallet (id INT PRIMARY KEY, balance BIGINT NOT NULL);
                    CREATE TABLE IF NOT EXISTS bench_transfer (id BIGSERIAL PRIMARY KEY, debit INT NOT NULL, credit INT NOT NULL, amount BIGINT NOT NULL, at TIMESTAMPTZ NOT NULL DEFAULT now())`);
  await pool.query(`INSERT INTO bench_wallet SELECT i, 1000000000 FROM generate_series(0, $1::int) AS i ON CONFLICT DO NOTHING`, [job.callers * 2]);
  try {
    return await timed(async (caller) => {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        await client.query('UPDATE bench_wallet SET balance = balance - 1 WHERE id = $1', [caller * 2]);
        await client.query('UPDATE bench_wallet SET balance = balance + 1 WHERE id = $1', [caller * 2 + 1]);
        await client.query('INSERT INTO bench_transfer (debit, credit, amount) VALUES ($1, $2, 1)', [caller * 2, caller * 2 + 1]);
        await client.query('COMMIT');
        return { status: 200 };
      } catch {
        await client.query('ROLLBACK').catch(() => {});
        return { status: 500 };
      } finally {
        client.release();
      }
    });
  } finally {
    await pool.end();
  }
}

process.stdout.write(`${JSON.stringify(job.kind === 'pg' ? await bare() : await http())}\n`);
