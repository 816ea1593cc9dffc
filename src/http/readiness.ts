// GET /readyz: whether this process can serve, i.e. its dependencies answer. The database (PGlite or
// PostgreSQL), the job queue (Redis PING under BullMQ; the in-process queue always can) and the blob
// store (a probe written and deleted: a folder or a bucket that cannot be written fails). Each check
// has its own short deadline, so a hung dependency shows as failed rather than hanging the probe.
// /healthz stays the liveness probe (the database answers), unchanged.
import type { Request, Response } from 'express';
import type { Services } from '../platform/service-registry.js';
import { sendJson } from './respond.js';
import { withDeadline } from '../platform/deadline.js';

export type ReadinessServices = Pick<Services, 'db' | 'queue' | 'blobs'>;

export const READINESS_CHECK_TIMEOUT_MS = 2_000;
/** Written and deleted by the blob check; a key no caller can make (theirs start with a kind). */
const PROBE_KEY = 'readyz-probe';

export interface CheckResult {
  ok: boolean;
  /** What was checked: `pglite`/`postgresql`, `in-process`/`bullmq`, the store's kind. */
  target: string;
  ms: number;
  error?: string;
}


async function check(target: string, what: string, run: () => Promise<unknown>, timeoutMs: number): Promise<CheckResult> {
  const started = performance.now();
  try {
    await withDeadline(Promise.resolve().then(run), timeoutMs, what);
    return { ok: true, target, ms: Math.round(performance.now() - started) };
  } catch (error) {
    return { ok: false, target, ms: Math.round(performance.now() - started), error: (error as Error).message || String(error) };
  }
}

export async function readinessChecks(services: ReadinessServices, timeoutMs = READINESS_CHECK_TIMEOUT_MS): Promise<Record<'database' | 'queue' | 'blobs', CheckResult>> {
  const [database, queue, blobs] = await Promise.all([
    check(services.db.kind, 'the database', () => services.db.query('SELECT 1'), timeoutMs),
    check(services.queue.kind, services.queue.kind === 'bullmq' ? 'Redis' : 'the queue', () => services.queue.ping(), timeoutMs),
    check(services.blobs.constructor.name, 'the blob store', async () => {
      await services.blobs.put(PROBE_KEY, Buffer.from('ok'), { contentType: 'text/plain', size: 2 });
      await services.blobs.delete(PROBE_KEY);
    }, timeoutMs),
  ]);
  return { database, queue, blobs };
}

export function readyzHandler(services: ReadinessServices) {
  return async (_req: Request, res: Response) => {
    const checks = await readinessChecks(services);
    const failed = Object.entries(checks).filter(([, c]) => !c.ok);
    if (failed.length === 0) return sendJson(res, 200, { success: true, status: 'ready', checks });
    res.set('Retry-After', '5');
    sendJson(res, 503, { success: false, status: 'not_ready', error: `not ready: ${failed.map(([name, c]) => `${name} (${c.target}): ${c.error}`).join('; ')}`, checks });
  };
}
