// Spec "Generation": POST /api/generate (sync), POST /api/replace/generate (a queued job, polled at
// /api/jobs/{id}) and POST /api/replace/batch (sync, up to 10 descriptions). The batch's answer is
// ours (the spec shows none): README "Generation".
import { z } from 'zod';
import { defineRoute } from '../route.js';
import { SCOPE } from '../../src/modules/access/index.js';
import { unwrap } from '../result.js';
import { GenerateBatchDocument, GenerateImagesDocument, StartReplaceGenerationDocument, type GeneratedImageFieldsFragment } from '../generated/operations.js';
import { batchSchema, generateSchema, replaceGenerateSchema } from '../../src/modules/generation/generation.input.js';
import { GENERATION_PROVIDERS } from '../../src/modules/generation/index.js';
import { JOB_STATES } from '../../src/modules/jobs/jobs.service.js';
import { count, id } from '../schemas.js';

const provider = z.enum(GENERATION_PROVIDERS).describe('the provider that made it');
const image = z
  .object({
    index: count.describe('0-based'),
    title: z.string().describe('the variation title'),
    provider,
    url: z.string().describe('data:image/png;base64,... usable directly as an image source'),
  })
  .meta({ id: 'GeneratedImage', description: 'Spec "Generated image"' });
const imageJson = (i: GeneratedImageFieldsFragment): z.input<typeof image> => ({ index: i.index, title: i.title, provider: i.provider, url: i.url });

const generationErrors = {
  402: 'too few API credits for the images asked (INSUFFICIENT_CREDITS), or a premium style not unlocked (STYLE_LOCKED)',
  502: 'every configured provider failed',
  503: 'no generation provider is configured (the message names the settings), or every one is cooling down after repeated failures',
} as const;

export const generationRoutes = [
  defineRoute({
    method: 'POST',
    path: '/api/generate',
    auth: 'key',
    key: SCOPE.generate,
    summary: 'Text-to-image: the configured providers in cost order, the first that delivers answers; count 1 to 4 (default 2) PNG data URIs',
    description:
      'style: professional (default), cinematic, minimalist, cyberpunk, or a premium preset the account unlocked; orientation: landscape (default), portrait, square. ' +
      'Costs GENERATE_CREDITS_PER_IMAGE API credits (default 1) per image delivered: held before the providers are called, only delivered images charged. ' +
      'count in the answer is the number of images delivered (a provider may deliver fewer than asked).',
    operation: GenerateImagesDocument,
    request: { body: generateSchema },
    response: z.object({ prompt: z.string(), count: count.describe('images delivered'), provider, images: z.array(image) }),
    errors: generationErrors,
    variables: ({ body }) => ({ input: { prompt: body.prompt, style: body.style, orientation: body.orientation, count: body.count, vendorKey: body.vendor_key } }),
    shape: (data) => {
      const r = unwrap(data.generateImages);
      return { prompt: r.prompt, count: r.count, provider: r.provider, images: r.images.map(imageJson) };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/api/replace/generate',
    auth: 'key',
    key: SCOPE.generate,
    summary: 'A queued generation job (description, style, count 1 to 4, default 2): poll /api/jobs/{id}; its PNGs become the job assets and media library items',
    description: 'Refused at once when no provider is configured (503) or the account lacks the credits for every image asked (402); the job charges only the images it delivers.',
    operation: StartReplaceGenerationDocument,
    request: { body: replaceGenerateSchema },
    response: z.object({ status: z.enum(JOB_STATES), job_id: id, message: z.string(), poll_url: z.string().describe('GET it to follow the job') }),
    errors: { 402: generationErrors[402], 503: 'no generation provider is configured' },
    successStatus: 202,
    variables: ({ body }) => ({ input: { description: body.description, style: body.style, count: body.count } }),
    shape: (data) => {
      const job = unwrap(data.startReplaceGeneration);
      const poll = `/api/jobs/${job.databaseId}`;
      return { status: job.state as (typeof JOB_STATES)[number], job_id: job.databaseId, message: `generation job queued; poll ${poll} every 2 to 5 seconds until its status is completed or failed`, poll_url: poll };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/api/replace/batch',
    auth: 'key',
    key: SCOPE.generate,
    summary: 'One image per description (1 to 10, generated in parallel), style as for /api/generate: one result or error per description, in order',
    description: 'The price of every description is held first (402 when the account cannot pay for all); only delivered images are charged.',
    operation: GenerateBatchDocument,
    request: { body: batchSchema },
    response: z.object({
      count: count.describe('descriptions'),
      succeeded: count,
      failed: count,
      results: z.array(
        z.object({
          index: count,
          description: z.string(),
          success: z.boolean(),
          provider: provider.nullable(),
          images: z.array(image).describe('one image on success, none on failure'),
          error: z.string().nullable().describe('why this description failed'),
          status: z.int().describe('the HTTP status this description alone would have had'),
        }),
      ),
      credits_charged: z.number(),
    }),
    errors: generationErrors,
    variables: ({ body }) => ({ input: { descriptions: body.descriptions, style: body.style } }),
    shape: (data) => {
      const r = unwrap(data.generateBatch);
      return {
        count: r.count,
        succeeded: r.succeeded,
        failed: r.failed,
        results: r.results.map((item) => ({
          index: item.index,
          description: item.description,
          success: item.success,
          provider: item.provider ?? null,
          images: item.images.map(imageJson),
          error: item.error ?? null,
          status: item.status,
        })),
        credits_charged: r.creditsCharged,
      };
    },
  }),
];
