// The pipeline operations, each declared once (docs/architecture.md): POST /api/pipeline runs steps
// in order, GET /api/pipeline/actions lists the actions, generated from the schemas the steps
// validate with. Any valid key may send a pipeline; each step needs the scope of its action's single
// route, checked for every step before any runs (pipeline.service.ts). The answers are stated in
// pipeline.schema.ts.
import { z } from 'zod';
import { defineMutation, defineOperations, defineQuery } from '../../graphql/operation.js';
import { ANY_KEY } from '../access/index.js';
import { answerFrom } from '../../platform/wire.js';
import { pipelineAnswer, PipelineCatalogRef, PipelineResultRef, StepInput } from './pipeline.schema.js';
import { pipelineRequestSchema } from './pipeline.input.js';
import type { PipelineResult } from './pipeline.service.js';

/** The answer's `error` when a step failed: the first failed step and why (its own entry says more). */
function pipelineFailure(result: Pick<PipelineResult, 'steps'>): string | null {
  const failed = result.steps.find((s) => s.status === 'failed');
  return failed ? `step ${failed.name} (${failed.action}) failed: ${failed.error?.message ?? 'no reason given'}` : null;
}

export const pipelineOperations = defineOperations({
  runPipeline: defineMutation({
    description: 'Runs steps in order (spec "Pipeline"); each step needs the scope of its action\'s single route',
    key: ANY_KEY,
    input: pipelineRequestSchema,
    inputType: 'RunPipelineInput',
    args: { steps: [StepInput] },
    output: PipelineResultRef,
    run: ({ ctx, actor, input }) => ctx.services.pipeline.run(actor, { ...input, steps: input.steps.map((s) => ({ ...s, params: s.params ?? undefined })) }, ctx.baseUrl),
    rest: {
      route: 'POST /api/pipeline',
      summary: 'Runs steps in order (scrape, search, generate, ocr, analyze, replace, filter); a param may be $<step>.<field>, an earlier step\'s output',
      description:
        'Any valid key; each step needs the scope of its action\'s single route (403 before any step runs). Steps, params and references are checked before any step runs (400). ' +
        'Each step runs the same service as its single route, with its credits; the request pays one quota unit for the first step and each further step takes one. ' +
        'At most 10 steps; the whole pipeline within PIPELINE_DEADLINE_MS (default 120 s). A failed step is in the answer (HTTP 200, success false), not an error status.',
      response: answerFrom(z.object({ pipeline: pipelineAnswer }), { pipeline: '' }),
      // Success is "no step failed": a failed step answers 200 with success false.
      failure: (result) => pipelineFailure(result as PipelineResult),
    },
  }),
  pipelineActions: defineQuery({
    description: 'Every pipeline action: params (types, defaults, required) and outputs, generated from the schemas steps are validated with',
    key: ANY_KEY,
    output: PipelineCatalogRef,
    plain: true,
    run: ({ ctx, actor }) => ctx.services.pipeline.catalog(actor),
    rest: {
      route: 'GET /api/pipeline/actions',
      summary: 'Every pipeline action: its params (types, defaults, required, allowed values) and outputs, generated from the schemas the steps validate with',
    },
  }),
});
