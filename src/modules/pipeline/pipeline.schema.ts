// GraphQL types of pipelines; runPipeline (POST /api/pipeline) and pipelineActions (GET
// /api/pipeline/actions) are declared in pipeline.operations.ts. Params and outputs are JSON values:
// their shapes are what pipelineActions lists. Thin: the rules live in pipeline.service.ts.
import { builder } from '../../graphql/builder.js';
import { ACTION_NAMES } from './actions/action.js';
import type { ActionEntry, OutputEntry, ParamEntry } from './pipeline.catalog.js';
import type { PipelineCatalog, PipelineResult, StepError, StepResult } from './pipeline.service.js';

const ActionEnum = builder.enumType('PipelineActionName', { values: ACTION_NAMES });
const StepStatusEnum = builder.enumType('PipelineStepStatus', {
  description: 'ok: ran and answered; failed: ran (or could not start) and failed; skipped: not run, an earlier step failed with stopOnError',
  values: ['ok', 'failed', 'skipped'] as const,
});

const StepErrorRef = builder.objectRef<StepError>('PipelineStepError').implement({
  fields: (t) => ({
    message: t.exposeString('message'),
    status: t.exposeInt('status', { nullable: true, description: 'The HTTP status the failure would have had as its own request; null when skipped' }),
    code: t.exposeString('code', { description: 'The error code (INVALID_INPUT, INSUFFICIENT_CREDITS, PIPELINE_DEADLINE, UNRESOLVED_REFERENCE, SKIPPED ...)' }),
  }),
});

const StepResultRef = builder.objectRef<StepResult>('PipelineStepResult').implement({
  fields: (t) => ({
    name: t.exposeString('name'),
    action: t.field({ type: ActionEnum, resolve: (s) => s.action }),
    status: t.field({ type: StepStatusEnum, resolve: (s) => s.status }),
    elapsed: t.exposeFloat('elapsed', { description: 'Seconds' }),
    output: t.field({ type: 'JSON', nullable: true, description: "The action's outputs (pipelineActions lists them); null unless ok", resolve: (s) => s.output }),
    error: t.field({ type: StepErrorRef, nullable: true, description: 'Why the step failed or was skipped; null when ok', resolve: (s) => s.error }),
  }),
});

export const PipelineResultRef = builder.objectRef<PipelineResult>('PipelineResult').implement({
  description: 'Spec "Pipeline result"',
  fields: (t) => ({
    success: t.exposeBoolean('success', { description: 'No step failed' }),
    stepsTotal: t.exposeInt('stepsTotal'),
    stepsOk: t.exposeInt('stepsOk'),
    stepsFailed: t.exposeInt('stepsFailed'),
    stepsSkipped: t.exposeInt('stepsSkipped'),
    elapsed: t.exposeFloat('elapsed', { description: 'Seconds' }),
    steps: t.field({ type: [StepResultRef], resolve: (r) => r.steps }),
    result: t.field({ type: 'JSON', nullable: true, description: "The last step's output; null when it did not succeed", resolve: (r) => r.result }),
  }),
});

const ParamRef = builder.objectRef<ParamEntry>('PipelineActionParam').implement({
  fields: (t) => ({
    name: t.exposeString('name'),
    type: t.exposeString('type', { description: 'string, integer, number, boolean, array of string, object ...' }),
    required: t.exposeBoolean('required'),
    default: t.field({ type: 'JSON', nullable: true, description: 'The default; null when there is none', resolve: (p) => p.default ?? null }),
    values: t.exposeStringList('values', { nullable: true, description: 'The allowed values of an enumeration' }),
    description: t.exposeString('description', { nullable: true }),
  }),
});

const OutputRef = builder.objectRef<OutputEntry>('PipelineActionOutput').implement({
  fields: (t) => ({
    name: t.exposeString('name'),
    type: t.exposeString('type'),
    description: t.exposeString('description', { nullable: true }),
  }),
});

const ActionRef = builder.objectRef<ActionEntry>('PipelineAction').implement({
  fields: (t) => ({
    name: t.field({ type: ActionEnum, resolve: (a) => a.name }),
    summary: t.exposeString('summary'),
    scope: t.exposeString('scope', { description: 'The sub-key scope the step needs (that of its single route), or any' }),
    params: t.field({ type: [ParamRef], resolve: (a) => a.params }),
    outputs: t.field({ type: [OutputRef], resolve: (a) => a.outputs }),
    paramsSchema: t.field({ type: 'JSON', description: 'JSON Schema (2020-12) of the params', resolve: (a) => a.paramsSchema }),
    outputsSchema: t.field({ type: 'JSON', description: 'JSON Schema (2020-12) of the outputs', resolve: (a) => a.outputsSchema }),
  }),
});

export const PipelineCatalogRef = builder.objectRef<PipelineCatalog>('PipelineCatalog').implement({
  fields: (t) => ({
    maxSteps: t.exposeInt('maxSteps'),
    deadlineMs: t.exposeInt('deadlineMs', { description: 'PIPELINE_DEADLINE_MS: the most one pipeline may take' }),
    actions: t.field({ type: [ActionRef], resolve: (c) => c.actions }),
  }),
});

export const StepInput = builder.inputType('PipelineStepInput', {
  fields: (t) => ({
    name: t.string({ required: true, description: 'Unique; later steps refer to its output as $<name>.<field>' }),
    action: t.field({ type: ActionEnum, required: true }),
    params: t.field({ type: 'JSON', description: 'An object of the action\'s params; a value may be a reference $<step>.<field>' }),
  }),
});
