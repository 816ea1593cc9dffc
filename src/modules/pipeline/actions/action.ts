// What every pipeline action is: its params and outputs as zod schemas (the static checks, the
// run-time validation and GET /api/pipeline/actions all come from them), the key rule of its single
// route (checked for every step before anything runs), and the work, which calls the same service
// as that route.
import type { z } from 'zod';
import { AppError, ErrorCode } from '../../../platform/errors.js';
import type { KeyRule } from '../../access/index.js';
import type { Actor } from '../../accounts/index.js';
import type { StepImages } from '../pipeline.images.js';

export const ACTION_NAMES = ['scrape', 'search', 'generate', 'ocr', 'analyze', 'replace', 'filter'] as const;
export type ActionName = (typeof ACTION_NAMES)[number];

export interface StepContext {
  actor: Actor;
  /** Base of absolute URLs handed out (PUBLIC_BASE_URL or the request's origin). */
  baseUrl: string;
  /** The step's name (stored generated images are grouped under it). */
  step: string;
  /** Aborted when the pipeline's deadline passes. */
  signal: AbortSignal;
  /** Images this run already holds (generated, scraped), by URL; other URLs are fetched. */
  images: StepImages;
}

export interface ActionDefinition<P extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> {
  name: ActionName;
  summary: string;
  /** What the key needs: the rule of the action's single route. */
  key: KeyRule;
  params: P;
  outputs: O;
  /**
   * `params` is validated by the params schema; `raw` is the resolved params as sent, which the
   * services that validate their own input (as their routes hand it over) get instead.
   */
  run(ctx: StepContext, params: z.output<P>, raw: Record<string, unknown>): Promise<z.input<O>>;
  /**
   * The work stops itself at the deadline (ctx.signal) with a message of its own (scrape names its
   * job); otherwise the pipeline stops waiting for it when the deadline passes.
   */
  ownDeadline?: boolean;
}

/** Keeps each definition's own types while they share one list. */
export function defineAction<P extends z.ZodType, O extends z.ZodType>(definition: ActionDefinition<P, O>): ActionDefinition {
  return definition as unknown as ActionDefinition;
}

/** A step the pipeline's deadline cut short, or that could not start before it (504 in the step's error). */
export class DeadlinePassed extends AppError {
  constructor(message: string) {
    super(message, 504, ErrorCode.PipelineDeadline);
  }
}

/** Waits `ms`, or less when the signal aborts. */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
