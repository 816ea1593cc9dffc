// The request of POST /api/pipeline (GraphQL runPipeline takes the same): ordered steps, each with
// a unique name, an action and its params, and stop_on_error. What each action's params may be is
// its own schema's to say (actions/*.ts); the service checks them, and the references, per step.
import { z } from 'zod';
import { ACTION_NAMES } from './actions/action.js';
import { STEP_NAME } from './pipeline.references.js';

/** The most steps one pipeline may have. */
export const MAX_STEPS = 10;

const NAME_RULE = 'expected a name of letters, digits and _ that starts with a letter, at most 40 characters';

export const stepSchema = z.object({
  name: z
    .string({ error: (issue) => (issue.input === undefined ? 'name is required: a unique name other steps use to refer to this one' : NAME_RULE) })
    .regex(STEP_NAME, NAME_RULE)
    .describe('unique; other steps refer to its output as $<name>.<field>'),
  action: z.enum(ACTION_NAMES, { error: (issue) => (issue.input === undefined ? `action is required: one of ${ACTION_NAMES.join(', ')}` : `expected one of ${ACTION_NAMES.join(', ')}`) }),
  params: z
    .record(z.string(), z.unknown(), { error: 'expected an object of the action\'s params' })
    .default({})
    .describe('the action\'s params (GET /api/pipeline/actions); a value may be a reference $<step>.<field> to an earlier step\'s output'),
});

export const pipelineRequestSchema = z
  .object({
    steps: z
      .array(stepSchema, { error: `steps is required: an array of 1 to ${MAX_STEPS} steps` })
      .min(1, `expected 1 to ${MAX_STEPS} steps`)
      .max(MAX_STEPS, `expected at most ${MAX_STEPS} steps`)
      .describe('run in order'),
    stop_on_error: z
      .boolean({ error: 'expected true or false' })
      .default(true)
      .describe('default true: the steps after a failed one are skipped; false: they run (a reference to a failed step fails its step)'),
  })
  .superRefine((request, ctx) => {
    const seen = new Map<string, number>();
    for (const [i, step] of request.steps.entries()) {
      const first = seen.get(step.name);
      if (first !== undefined) ctx.addIssue({ code: 'custom', path: ['steps', i, 'name'], message: `the name ${step.name} is already used by steps.${first}: names must be unique` });
      else seen.set(step.name, i);
    }
  })
  .describe('POST /api/pipeline');

export type PipelineRequest = z.output<typeof pipelineRequestSchema>;
