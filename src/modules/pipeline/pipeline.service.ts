// Pipelines (spec "Pipeline": POST /api/pipeline): steps run in order, each an action that calls the
// same service as its single route, with the same scope, quota and credit rules. In order:
// 1. The request (400): 1 to MAX_STEPS steps with unique names and known actions.
// 2. The key (403), for every step before any runs: the scope of each action's single route, with
//    that route's message. Any valid key may send a pipeline; a sub-key needs the scopes its steps use.
// 3. Every step's params (400), before any runs: no unknown param, the literal values valid for the
//    action, URLs the SSRF-safe fetcher would refuse refused now, and every reference to a step
//    that exists, runs earlier, and declares the field in its outputs (pipeline.references.ts).
// 4. The steps, one after the other, under one deadline (PIPELINE_DEADLINE_MS). Each resolves its
//    references, is validated again with the values, takes a quota unit (the request's own unit
//    pays for the first step, as with GraphQL root fields) and runs. A failure is the step's
//    (status failed, with the error's message, HTTP status and code); with stop_on_error the steps
//    after it are skipped.
import { performance } from 'node:perf_hooks';
import type { z } from 'zod';
import { AppError, ErrorCode, Forbidden, InvalidInput } from '../../platform/errors.js';
import { parseInput } from '../../platform/validation.js';
import { ANY_KEY, requireKey } from '../access/index.js';
import type { Actor } from '../accounts/index.js';
import { DeadlinePassed, type ActionDefinition, type ActionName, type StepContext } from './actions/action.js';
import { filterAction } from './actions/filter.action.js';
import { generateAction } from './actions/generate.action.js';
import { replaceAction } from './actions/replace.action.js';
import { scrapeAction } from './actions/scrape.action.js';
import { searchAction } from './actions/search.action.js';
import { analyzeAction, ocrAction } from './actions/vision.actions.js';
import { catalogEntry, type ActionEntry } from './pipeline.catalog.js';
import type { PipelineDeps } from './pipeline.deps.js';
import { StepImages } from './pipeline.images.js';
import { MAX_STEPS, pipelineRequestSchema, type PipelineRequest } from './pipeline.input.js';
import { checkReference, findReferences, resolve, schemaAt, Unresolved, type FoundReference, type Segment, type StepOutcome } from './pipeline.references.js';

export type StepStatus = StepOutcome['status'];

export interface StepError {
  message: string;
  /** The HTTP status the failure would have had as its own request; null for a skipped step. */
  status: number | null;
  code: ErrorCode;
}

export interface StepResult {
  name: string;
  action: ActionName;
  status: StepStatus;
  /** Seconds. */
  elapsed: number;
  /** The action's outputs when ok; null otherwise. */
  output: unknown;
  error: StepError | null;
}

export interface PipelineResult {
  /** No step failed (and so none was skipped). */
  success: boolean;
  stepsTotal: number;
  stepsOk: number;
  stepsFailed: number;
  stepsSkipped: number;
  /** Seconds. */
  elapsed: number;
  steps: StepResult[];
  /** The last step's output; null when it did not succeed. */
  result: unknown;
}

export interface PipelineCatalog {
  maxSteps: number;
  deadlineMs: number;
  actions: ActionEntry[];
}

/** Params whose literal values are URLs the service fetches (refused at once when they cannot be fetched). */
const URL_PARAMS = new Set(['url', 'urls', 'article_url', 'image_url']);

const seconds = (ms: number) => Math.round(ms) / 1000;
const dotted = (path: readonly Segment[]) => path.map(String).join('.');

export class PipelineService {
  private readonly actions = new Map<ActionName, { action: ActionDefinition; entry: ActionEntry }>();

  constructor(private readonly deps: PipelineDeps) {
    for (const action of [scrapeAction(deps), searchAction(deps), generateAction(deps), ocrAction(deps), analyzeAction(deps), replaceAction(deps), filterAction(deps)]) {
      this.actions.set(action.name, { action, entry: catalogEntry(action) });
    }
  }

  /** GET /api/pipeline/actions: any valid key. */
  catalog(actor: Actor | null): PipelineCatalog {
    requireKey(actor, ANY_KEY);
    return { maxSteps: MAX_STEPS, deadlineMs: this.deps.config.deadlineMs, actions: [...this.actions.values()].map((a) => a.entry) };
  }

  /** POST /api/pipeline. `baseUrl` makes the links steps answer with absolute. */
  async run(actor: Actor | null, input: unknown, baseUrl: string): Promise<PipelineResult> {
    const caller = requireKey(actor, ANY_KEY);
    const request = parseInput(pipelineRequestSchema, input);
    this.checkKey(caller, request);
    this.checkParams(request);

    const { deadlineMs } = this.deps.config;
    const started = performance.now();
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), deadlineMs);
    const images = new StepImages(this.deps.fetcher, this.deps.blobs, this.deps.maxImageBytes);
    const outcomes = new Map<string, StepOutcome>();
    const steps: StepResult[] = [];
    let stoppedBy: string | null = null;
    try {
      for (const [index, step] of request.steps.entries()) {
        const result: StepResult =
          stoppedBy === null
            ? await this.runStep(index, step, outcomes, { actor: caller, baseUrl, step: step.name, signal: controller.signal, images })
            : { name: step.name, action: step.action, status: 'skipped', elapsed: 0, output: null, error: { message: `not run: step ${stoppedBy} failed and stop_on_error is true`, status: null, code: ErrorCode.Skipped } };
        steps.push(result);
        outcomes.set(step.name, { status: result.status, output: result.output });
        if (result.status === 'failed' && request.stop_on_error && stoppedBy === null) stoppedBy = step.name;
      }
    } finally {
      clearTimeout(timer);
    }
    const count = (status: StepStatus) => steps.filter((s) => s.status === status).length;
    const last = steps[steps.length - 1]!;
    const result: PipelineResult = {
      success: count('failed') === 0,
      stepsTotal: steps.length,
      stepsOk: count('ok'),
      stepsFailed: count('failed'),
      stepsSkipped: count('skipped'),
      elapsed: seconds(performance.now() - started),
      steps,
      result: last.status === 'ok' ? last.output : null,
    };
    this.deps.logger.info({ account: caller.accountId, actions: steps.map((s) => `${s.action}:${s.status}`), elapsed: result.elapsed }, 'pipeline ran');
    return result;
  }

  /** Every step's key rule before any runs: the message of the action's single route, naming the step. */
  private checkKey(caller: Actor, request: PipelineRequest): void {
    for (const [index, step] of request.steps.entries()) {
      try {
        requireKey(caller, this.definition(step.action).action.key);
      } catch (error) {
        if (error instanceof Forbidden) throw new Forbidden(`steps.${index} (${step.name}, action ${step.action}): ${error.message}`);
        throw error;
      }
    }
  }

  /** Every step's params and references before any runs (the 400s; see the top of this file). */
  private checkParams(request: PipelineRequest): void {
    const signatures = request.steps.map((s) => ({ name: s.name, action: s.action, outputs: this.definition(s.action).entry.outputsSchema }));
    for (const [index, step] of request.steps.entries()) {
      const { action, entry } = this.definition(step.action);
      const prefix = `steps.${index}.params`;
      const known = entry.params.map((p) => p.name);
      const unknown = Object.keys(step.params).find((key) => !known.includes(key));
      if (unknown !== undefined) throw new InvalidInput(`${prefix}.${unknown}: not a param of ${step.action} (its params: ${known.join(', ')})`, `${prefix}.${unknown}`);

      let references: FoundReference[];
      try {
        references = findReferences(step.params);
      } catch (error) {
        if (error instanceof InvalidInput) throw new InvalidInput(`${prefix}.${error.message}`, prefix);
        throw error;
      }
      for (const found of references) {
        const at = found.whole ? schemaAt(entry.paramsSchema, found.at) : null;
        checkReference(found, signatures, index, at && 'schema' in at ? at.schema : null, `${prefix}.${dotted(found.at)}`);
      }
      const withReferences = new Set(references.map((r) => String(r.at[0])));
      const literal = Object.fromEntries(Object.entries(step.params).filter(([key]) => !withReferences.has(key)));
      const parsed = action.params.safeParse(literal);
      if (!parsed.success) {
        // What a reference will fill, and rules across params (one of two given), wait for the values.
        const issue = parsed.error.issues.find((i) => !withReferences.has(String(i.path[0])) && !(references.length > 0 && i.code === 'custom'));
        if (issue) throw paramError(prefix, issue);
      }
      if (step.action !== 'filter') this.checkUrls(prefix, literal);
    }
  }

  /** Literal URLs the SSRF-safe fetcher would refuse (a private address, a local name) are a 400 now. */
  private checkUrls(prefix: string, params: Record<string, unknown>): void {
    for (const [key, value] of Object.entries(params)) {
      if (!URL_PARAMS.has(key)) continue;
      for (const [i, url] of (Array.isArray(value) ? value : [value]).entries()) {
        if (typeof url !== 'string' || !/^https?:\/\//i.test(url)) continue;
        const refusal = this.deps.fetcher.refusal(url);
        const field = Array.isArray(value) ? `${prefix}.${key}.${i}` : `${prefix}.${key}`;
        if (refusal) throw new InvalidInput(`${field}: refused: ${refusal}`, field);
      }
    }
  }

  private async runStep(index: number, step: PipelineRequest['steps'][number], outcomes: ReadonlyMap<string, StepOutcome>, ctx: StepContext): Promise<StepResult> {
    const started = performance.now();
    const { action } = this.definition(step.action);
    const done = (status: StepStatus, output: unknown, error: StepError | null): StepResult => ({
      name: step.name,
      action: step.action,
      status,
      elapsed: seconds(performance.now() - started),
      output,
      error,
    });
    try {
      if (ctx.signal.aborted) throw new DeadlinePassed(`not started: the pipeline's deadline of ${seconds(this.deps.config.deadlineMs)} s had passed`);
      const raw = this.resolved(step.params, outcomes);
      const params = parseStep(action.params, raw, `steps.${index}.params`);
      // The request's own quota unit pays for the first step; each further step takes one.
      if (index > 0) await this.deps.quota.consume(ctx.actor);
      const work = action.run(ctx, params, raw);
      const output = action.ownDeadline ? await work : await this.withinDeadline(work, ctx.signal);
      return done('ok', output, null);
    } catch (error) {
      if (error instanceof AppError) return done('failed', null, { message: error.message, status: error.status, code: error.code });
      this.deps.logger.error({ err: error, step: step.name, action: step.action }, 'pipeline: a step failed unexpectedly');
      return done('failed', null, { message: 'the step failed with an internal error', status: 500, code: ErrorCode.Internal });
    }
  }

  private resolved(params: Record<string, unknown>, outcomes: ReadonlyMap<string, StepOutcome>): Record<string, unknown> {
    try {
      return resolve(params, outcomes) as Record<string, unknown>;
    } catch (error) {
      if (error instanceof Unresolved) throw new AppError(error.message, 400, ErrorCode.UnresolvedReference);
      throw error;
    }
  }

  /** The step's work, or its failure once the deadline passes (the work itself may still finish). */
  private withinDeadline<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const passed = () =>
        reject(new DeadlinePassed(`the pipeline's deadline of ${seconds(this.deps.config.deadlineMs)} s passed while this step ran; work it started may still finish (and be charged as its route would be)`));
      if (signal.aborted) return passed();
      signal.addEventListener('abort', passed, { once: true });
      work.then(resolve, reject).finally(() => signal.removeEventListener('abort', passed));
    });
  }

  private definition(name: ActionName) {
    return this.actions.get(name)!;
  }
}

/** The params as the action's schema takes them, or the 400 naming the step's param. */
function parseStep<S extends z.ZodType>(schema: S, raw: unknown, prefix: string): z.output<S> {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  throw paramError(prefix, parsed.error.issues[0]!);
}

function paramError(prefix: string, issue: z.core.$ZodIssue): InvalidInput {
  const field = issue.path.length ? `${prefix}.${issue.path.map(String).join('.')}` : prefix;
  return new InvalidInput(`${field}: ${issue.message}`, field);
}
