// The generation operations, each declared once (docs/architecture.md). Spec "Generation": POST
// /api/generate (sync), POST /api/replace/generate (a queued job, polled at /api/jobs/{id}) and POST
// /api/replace/batch (sync, up to 10 descriptions; its answer is ours: README "Generation"). The
// rules live in generation.service.ts.
import { defineMutation, defineOperations } from '../../graphql/operation.js';
import { SCOPE } from '../access/index.js';
import { queuedJobAnswer } from '../jobs/index.js';
import { BatchResultRef, GenerationResultRef, OrientationEnum, QueuedJobRef } from './generation.schema.js';
import { batchSchema, generateSchema, replaceGenerateSchema } from './generation.input.js';

const generationErrors = {
  402: 'too few API credits for the images asked (INSUFFICIENT_CREDITS), or a premium style not unlocked (STYLE_LOCKED)',
  502: 'every configured provider failed',
  503: 'no generation provider is configured (the message names the settings), or every one is cooling down after repeated failures',
} as const;

export const generationOperations = defineOperations({
  generateImages: defineMutation({
    description: 'Text-to-image: the configured providers in cost order, the first that delivers answers (spec "Generation")',
    key: SCOPE.generate,
    input: generateSchema,
    inputType: 'GenerateImagesInput',
    args: { orientation: OrientationEnum },
    output: GenerationResultRef,
    run: ({ ctx, actor, input }) => ctx.services.generation.generate(actor, input),
    rest: {
      route: 'POST /api/generate',
      summary: 'Text-to-image: the configured providers in cost order, the first that delivers answers; count 1 to 4 (default 2) PNG data URIs',
      description:
        'style: professional (default), cinematic, minimalist, cyberpunk, or a premium preset the account unlocked; orientation: landscape (default), portrait, square. ' +
        'Costs GENERATE_CREDITS_PER_IMAGE API credits (default 1) per image delivered: held before the providers are called, only delivered images charged. ' +
        'count in the answer is the number of images delivered (a provider may deliver fewer than asked).',
      errors: generationErrors,
    },
  }),
  startReplaceGeneration: defineMutation({
    description: 'A queued generation job: its PNGs become the job assets and media library items',
    key: SCOPE.generate,
    input: replaceGenerateSchema,
    inputType: 'ReplaceGenerationInput',
    output: QueuedJobRef,
    run: ({ ctx, actor, input }) => ctx.services.generation.startReplace(actor, input),
    rest: {
      route: 'POST /api/replace/generate',
      summary: 'A queued generation job (description, style, count 1 to 4, default 2): poll /api/jobs/{id}; its PNGs become the job assets and media library items',
      description: 'Refused at once when no provider is configured (503) or the account lacks the credits for every image asked (402); the job charges only the images it delivers.',
      errors: { 402: generationErrors[402], 503: 'no generation provider is configured' },
      successStatus: 202,
      ...queuedJobAnswer('generation'),
    },
  }),
  generateBatch: defineMutation({
    description: 'One image per description (1 to 10), generated in parallel; one result or error per description, in order',
    key: SCOPE.generate,
    input: batchSchema,
    inputType: 'GenerateBatchInput',
    output: BatchResultRef,
    run: ({ ctx, actor, input }) => ctx.services.generation.batch(actor, input),
    rest: {
      route: 'POST /api/replace/batch',
      summary: 'One image per description (1 to 10, generated in parallel), style as for /api/generate: one result or error per description, in order',
      description: 'The price of every description is held first (402 when the account cannot pay for all); only delivered images are charged.',
      errors: generationErrors,
    },
  }),
});
