// What configuration says about pipelines (src/config.ts reads it): the total deadline of one run.
// A leaf module (zod only), so the configuration reads it without loading the pipeline services.
import { z } from 'zod';

export interface PipelineConfig {
  /** The most a whole pipeline may take, in milliseconds: a step past it fails (PIPELINE_DEADLINE_MS). */
  deadlineMs: number;
}

/** The PIPELINE_* variables, spread into the configuration's schema. */
export const pipelineEnvShape = {
  PIPELINE_DEADLINE_MS: z.coerce.number().int().min(100).max(600_000).default(120_000).describe('the most one pipeline may take, in ms (100 to 600000): a step still running then, or not started, fails with status 504 `PIPELINE_DEADLINE` ([Pipeline](rest-api.md#pipeline))'),
};

type PipelineEnv = z.output<z.ZodObject<typeof pipelineEnvShape>>;

export function pipelineConfigFrom(e: PipelineEnv): PipelineConfig {
  return { deadlineMs: e.PIPELINE_DEADLINE_MS };
}
