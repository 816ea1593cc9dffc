// What configuration says about jobs (src/config.ts reads it): whether this process runs workers,
// how many jobs at once, the lease and the poll. A leaf file (zod only).
import { z } from 'zod';
import { boolish } from '../../platform/env.js';

export interface JobsConfig {
  concurrency: number;
  leaseMs: number;
  pollMs: number;
}

/** RUN_WORKERS and the WORKER_* and JOB_* variables, spread into the configuration's schema. */
export const jobsEnvShape = {
  RUN_WORKERS: boolish.default(true).describe('whether this process runs job workers, webhook deliveries and schedules (`false` for API-only processes)'),
  WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2).describe('jobs one process runs at once'),
  JOB_LEASE_MS: z.coerce.number().int().min(100).default(60_000).describe("a worker's hold on a job, renewed every third of it; a job whose holder died is queued again once, then failed"),
  JOB_POLL_MS: z.coerce.number().int().min(10).default(1_000).describe('how often idle in-process workers look for queued jobs (an enqueue wakes them at once)'),
};

type JobsEnv = z.output<z.ZodObject<typeof jobsEnvShape>>;

export function jobsConfigFrom(e: JobsEnv): JobsConfig {
  return { concurrency: e.WORKER_CONCURRENCY, leaseMs: e.JOB_LEASE_MS, pollMs: e.JOB_POLL_MS };
}
