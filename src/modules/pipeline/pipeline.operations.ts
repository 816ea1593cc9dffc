// The pipeline operations, each declared once (docs/architecture.md): POST /api/pipeline runs steps
// in order, GET /api/pipeline/actions lists the actions, generated from the schemas the steps
// validate with. Any valid key may send a pipeline; each step needs the scope of its action's single
// route, checked for every step before any runs (pipeline.service.ts). The answer's shapes beyond
// the spec's: README "Pipeline".
import { z } from 'zod';
import { defineOperation, defineOperations } from '../../graphql/operation.js';
import { ANY_KEY } from '../access/index.js';
import { answerFrom, count } from '../../platform/wire.js';
import { ACTION_NAMES } from './actions/action.js';
import { PipelineCatalogRef, PipelineResultRef, StepInput } from './pipeline.schema.js';
import { pipelineRequestSchema } from './pipeline.input.js';
import type { PipelineResult } from './pipeline.service.js';

const seconds = z.number().min(0).describe('seconds');
const jsonSchema = z.record(z.string(), z.unknown());

const step = answerFrom(
  z
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
    .meta({ id: 'PipelineStep', description: 'One step of a pipeline result' }),
  {},
  'PipelineStepResult',
);

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
function pipelineFailure(result: Pick<PipelineResult, 'steps'>): string | null {
  const failed = result.steps.find((s) => s.status === 'failed');
  return failed ? `step ${failed.name} (${failed.action}) failed: ${failed.error?.message ?? 'no reason given'}` : null;
}

export const pipelineOperations = defineOperations({
  runPipeline: defineOperation({
    kind: 'mutation',
    description: 'Runs steps in order (spec "Pipeline"); each step needs the scope of its action\'s single route',
    key: ANY_KEY,
    input: pipelineRequestSchema,
    inputType: 'RunPipelineInput',
    args: { steps: [StepInput] },
    output: PipelineResultRef,
    run: ({ ctx, actor, input }) => ctx.services.pipeline.run(actor, { ...input, steps: input.steps.map((s) => ({ ...s, params: s.params ?? undefined })) }, ctx.baseUrl),
    rest: {
      method: 'POST',
      path: '/api/pipeline',
      summary: 'Runs steps in order (scrape, search, generate, ocr, analyze, replace, filter); a param may be $<step>.<field>, an earlier step\'s output',
      description:
        'Any valid key; each step needs the scope of its action\'s single route (403 before any step runs). Steps, params and references are checked before any step runs (400). ' +
        'Each step runs the same service as its single route, with its credits; the request pays one quota unit for the first step and each further step takes one. ' +
        'At most 10 steps; the whole pipeline within PIPELINE_DEADLINE_MS (default 120 s). A failed step is in the answer (HTTP 200, success false), not an error status.',
      response: answerFrom(
        z.object({
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
        { pipeline: '' },
      ),
      // Success is "no step failed": a failed step answers 200 with success false.
      failure: (result) => pipelineFailure(result as PipelineResult),
    },
  }),
  pipelineActions: defineOperation({
    kind: 'query',
    description: 'Every pipeline action: params (types, defaults, required) and outputs, generated from the schemas steps are validated with',
    key: ANY_KEY,
    output: PipelineCatalogRef,
    plain: true,
    run: ({ ctx, actor }) => ctx.services.pipeline.catalog(actor),
    rest: {
      method: 'GET',
      path: '/api/pipeline/actions',
      summary: 'Every pipeline action: its params (types, defaults, required, allowed values) and outputs, generated from the schemas the steps validate with',
      response: z.object({
        max_steps: count,
        deadline_ms: count.describe('PIPELINE_DEADLINE_MS'),
        actions: z.array(action),
      }),
    },
  }),
});
