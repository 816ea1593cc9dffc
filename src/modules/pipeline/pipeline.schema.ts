// Pipelines as callers see them (docs/rest-api.md "Pipeline"), stated once: the answer objects (REST names,
// src/platform/wire.ts) and the GraphQL types made from them; runPipeline (POST /api/pipeline) and
// pipelineActions (GET /api/pipeline/actions) are declared in pipeline.operations.ts. Params and
// outputs are JSON values: their shapes are what pipelineActions lists. Thin: the rules live in
// pipeline.service.ts.
import { z } from 'zod';
import { builder } from '../../graphql/builder.js';
import { answerEnum, answerObject } from '../../graphql/answer-object.js';
import { answerFrom, count } from '../../platform/wire.js';
import { ACTION_NAMES } from './actions/action.js';
import type { ActionEntry, OutputEntry, ParamEntry } from './pipeline.catalog.js';
import type { PipelineCatalog, PipelineResult, StepError, StepResult } from './pipeline.service.js';

const STEP_STATUSES = ['ok', 'failed', 'skipped'] as const;
const ActionEnum = answerEnum('PipelineActionName', { values: ACTION_NAMES });
// The same values as ReplaceFlowSearchStatus: the field names its type.
const StepStatusEnum = answerEnum('PipelineStepStatus', {
  description: 'ok: ran and answered; failed: ran (or could not start) and failed; skipped: not run, an earlier step failed with stopOnError',
  values: STEP_STATUSES,
});

const seconds = z.number().min(0).describe('seconds');
const jsonSchema = z.record(z.string(), z.unknown());
/** A JSON value: GraphQL's JSON scalar. */
const json = { type: 'JSON' };

const stepError = z.object({
  message: z.string(),
  status: z.int().nullable().describe('the HTTP status the failure would have had as its own request (null when skipped)'),
  code: z.string().describe('INVALID_INPUT, UNRESOLVED_REFERENCE, INSUFFICIENT_CREDITS, QUOTA_EXCEEDED, PIPELINE_DEADLINE, SKIPPED ...'),
});
answerObject<StepError>('PipelineStepError', stepError);

const step = answerFrom(
  z
    .object({
      name: z.string(),
      action: z.enum(ACTION_NAMES),
      status: z.enum(STEP_STATUSES).describe('ok: ran and answered; failed: failed (or could not start: the deadline); skipped: not run, an earlier step failed and stop_on_error is true'),
      elapsed: seconds,
      output: z.unknown().describe("the action's outputs (GET /api/pipeline/actions lists them); null unless ok"),
      error: stepError.nullable().describe('why the step failed or was skipped; null when ok'),
    })
    .meta({ id: 'PipelineStep', description: 'One step of a pipeline result' }),
  {},
  'PipelineStepResult',
);
answerObject<StepResult>('PipelineStepResult', step, { fields: () => ({ status: { type: StepStatusEnum }, output: { ...json, nullable: true } }) });

export const pipelineAnswer = z.object({
  steps_total: count,
  steps_ok: count,
  steps_failed: count,
  steps_skipped: count.describe('ours: steps not run after a failure (stop_on_error)'),
  elapsed: seconds,
  steps: z.array(step),
  result: z.unknown().describe("the last step's output; null when it did not succeed"),
});
export const PipelineResultRef = answerObject<PipelineResult>('PipelineResult', pipelineAnswer, {
  description: 'Spec "Pipeline result"',
  fields: () => ({ result: { ...json, nullable: true } }),
  // REST answers it as the envelope's `success`.
  more: (t) => ({ success: t.exposeBoolean('success', { description: 'No step failed' }) }),
});

const param = z.object({
  name: z.string(),
  type: z.string().describe('string, integer, number, boolean, array of string, object ...'),
  required: z.boolean(),
  default: z.unknown().optional().describe('present when the param has a default'),
  values: z.array(z.string()).nullable().describe('the allowed values of an enumeration'),
  description: z.string().nullable(),
});
answerObject<ParamEntry>('PipelineActionParam', param, {
  fields: () => ({ default: { ...json, nullable: true, description: 'The default; null when there is none', resolve: (p) => p.default ?? null } }),
});

const output = z.object({ name: z.string(), type: z.string(), description: z.string().nullable() });
answerObject<OutputEntry>('PipelineActionOutput', output);

const action = z
  .object({
    name: z.enum(ACTION_NAMES),
    summary: z.string(),
    scope: z.string().describe('the sub-key scope the step needs (that of its single route), or any'),
    params: z.array(param),
    outputs: z.array(output),
    params_schema: jsonSchema.describe('JSON Schema (2020-12) of the params'),
    outputs_schema: jsonSchema.describe('JSON Schema (2020-12) of the outputs'),
  })
  .meta({ id: 'PipelineAction', description: 'An action pipeline steps can run' });
answerObject<ActionEntry>('PipelineAction', action, { fields: () => ({ params_schema: json, outputs_schema: json }) });

export const pipelineCatalog = z.object({ max_steps: count, deadline_ms: count.describe('PIPELINE_DEADLINE_MS'), actions: z.array(action) });
export const PipelineCatalogRef = answerObject<PipelineCatalog>('PipelineCatalog', pipelineCatalog, {
  fields: () => ({ deadline_ms: { description: 'PIPELINE_DEADLINE_MS: the most one pipeline may take' } }),
});

export const StepInput = builder.inputType('PipelineStepInput', {
  fields: (t) => ({
    name: t.string({ required: true, description: 'Unique; later steps refer to its output as $<name>.<field>' }),
    action: t.field({ type: ActionEnum, required: true }),
    params: t.field({ type: 'JSON', description: 'An object of the action\'s params; a value may be a reference $<step>.<field>' }),
  }),
});
