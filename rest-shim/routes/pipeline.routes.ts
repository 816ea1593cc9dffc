// Spec "Pipeline": POST /api/pipeline runs steps in order (src/modules/pipeline/), GET
// /api/pipeline/actions lists the actions, generated from the schemas the steps validate with. Any
// valid key may send a pipeline; each step needs the scope of its action's single route, checked
// for every step before any runs. The answer's shapes beyond the spec's: README "Pipeline".
import { z } from 'zod';
import { defineRoute } from '../route.js';
import { ANY_KEY } from '../../src/modules/access/index.js';
import { unwrap } from '../result.js';
import { PipelineActionsDocument, RunPipelineDocument } from '../generated/operations.js';
import { ACTION_NAMES, pipelineRequestSchema } from '../../src/modules/pipeline/index.js';
import { count } from '../schemas.js';

const seconds = z.number().min(0).describe('seconds');
const jsonSchema = z.record(z.string(), z.unknown());

const step = z
  .object({
    name: z.string(),
    action: z.enum(ACTION_NAMES),
    status: z.enum(['ok', 'failed', 'skipped']).describe('ok: ran and answered; failed: failed (or could not start: the deadline); skipped: not run, an earlier step failed and stop_on_error is true'),
    elapsed: seconds,
    output: z.unknown().describe("the action's outputs (GET /api/pipeline/actions lists them); null unless ok"),
    error: z
      .object({
        message: z.string(),
        status: z.int().nullable().describe('the HTTP status the failure would have had as its own request (null when skipped)'),
        code: z.string().describe('INVALID_INPUT, UNRESOLVED_REFERENCE, INSUFFICIENT_CREDITS, QUOTA_EXCEEDED, PIPELINE_DEADLINE, SKIPPED ...'),
      })
      .nullable()
      .describe('why the step failed or was skipped; null when ok'),
  })
  .meta({ id: 'PipelineStep', description: 'One step of a pipeline result' });

const action = z
  .object({
    name: z.enum(ACTION_NAMES),
    summary: z.string(),
    scope: z.string().describe('the sub-key scope the step needs (that of its single route), or any'),
    params: z.array(
      z.object({
        name: z.string(),
        type: z.string().describe('string, integer, number, boolean, array of string, object ...'),
        required: z.boolean(),
        default: z.unknown().optional().describe('present when the param has a default'),
        values: z.array(z.string()).nullable().describe('the allowed values of an enumeration'),
        description: z.string().nullable(),
      }),
    ),
    outputs: z.array(z.object({ name: z.string(), type: z.string(), description: z.string().nullable() })),
    params_schema: jsonSchema.describe('JSON Schema (2020-12) of the params'),
    outputs_schema: jsonSchema.describe('JSON Schema (2020-12) of the outputs'),
  })
  .meta({ id: 'PipelineAction', description: 'An action pipeline steps can run' });

/** The answer's `error` when a step failed: the first failed step and why (its own entry says more). */
function pipelineFailure(steps: ReadonlyArray<{ name: string; action: string; status: string; error?: { message: string } | null }>): string {
  const failed = steps.find((s) => s.status === 'failed');
  return failed ? `step ${failed.name} (${failed.action}) failed: ${failed.error?.message ?? 'no reason given'}` : 'the pipeline did not complete';
}

export const pipelineRoutes = [
  defineRoute({
    method: 'POST',
    path: '/api/pipeline',
    auth: 'key',
    key: ANY_KEY,
    summary: 'Runs steps in order (scrape, search, generate, ocr, analyze, replace, filter); a param may be $<step>.<field>, an earlier step\'s output',
    description:
      'Any valid key; each step needs the scope of its action\'s single route (403 before any step runs). Steps, params and references are checked before any step runs (400). ' +
      'Each step runs the same service as its single route, with its credits; the request pays one quota unit for the first step and each further step takes one. ' +
      'At most 10 steps; the whole pipeline within PIPELINE_DEADLINE_MS (default 120 s). A failed step is in the answer (HTTP 200, success false), not an error status.',
    operation: RunPipelineDocument,
    request: { body: pipelineRequestSchema },
    response: z.object({
      pipeline: z.object({
        steps_total: count,
        steps_ok: count,
        steps_failed: count,
        steps_skipped: count.describe('ours: steps not run after a failure (stop_on_error)'),
        elapsed: seconds,
        steps: z.array(step),
        result: z.unknown().describe("the last step's output; null when it did not succeed"),
      }),
    }),
    variables: ({ body }) => ({
      input: { steps: body.steps.map((s) => ({ name: s.name, action: s.action, params: s.params })), stopOnError: body.stop_on_error },
    }),
    failure: (data) => (data.runPipeline.__typename === 'MutationRunPipelineSuccess' && !data.runPipeline.data.success ? pipelineFailure(data.runPipeline.data.steps) : null),
    shape: (data) => {
      const r = unwrap(data.runPipeline);
      return {
        pipeline: {
          steps_total: r.stepsTotal,
          steps_ok: r.stepsOk,
          steps_failed: r.stepsFailed,
          steps_skipped: r.stepsSkipped,
          elapsed: r.elapsed,
          steps: r.steps.map((s) => ({ name: s.name, action: s.action, status: s.status, elapsed: s.elapsed, output: s.output ?? null, error: s.error ?? null })),
          result: r.result ?? null,
        },
      };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/pipeline/actions',
    auth: 'key',
    key: ANY_KEY,
    summary: 'Every pipeline action: its params (types, defaults, required, allowed values) and outputs, generated from the schemas the steps validate with',
    operation: PipelineActionsDocument,
    response: z.object({
      max_steps: count,
      deadline_ms: count.describe('PIPELINE_DEADLINE_MS'),
      actions: z.array(action),
    }),
    shape: (data) => {
      const c = data.pipelineActions;
      return {
        max_steps: c.maxSteps,
        deadline_ms: c.deadlineMs,
        actions: c.actions.map((a) => ({
          name: a.name,
          summary: a.summary,
          scope: a.scope,
          params: a.params.map((p) => ({
            name: p.name,
            type: p.type,
            required: p.required,
            ...(p.default === null || p.default === undefined ? {} : { default: p.default }),
            values: p.values ?? null,
            description: p.description ?? null,
          })),
          outputs: a.outputs.map((o) => ({ name: o.name, type: o.type, description: o.description ?? null })),
          params_schema: a.paramsSchema as Record<string, unknown>,
          outputs_schema: a.outputsSchema as Record<string, unknown>,
        })),
      };
    },
  }),
];
