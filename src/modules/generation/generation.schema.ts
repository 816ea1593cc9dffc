// Image generation as callers see it, stated once: each answer object (REST names,
// src/platform/wire.ts) and the GraphQL type made from it (src/graphql/answer-object.ts), and the
// providers' state; the operations (generateImages, startReplaceGeneration, generateBatch) are
// declared in generation.operations.ts.
import { z } from 'zod';
import { builder } from '../../graphql/builder.js';
import { answerEnum, answerObject } from '../../graphql/answer-object.js';
import { count } from '../../platform/wire.js';
import { authScopesOf, SCOPE } from '../access/index.js';
import type { Job } from '../jobs/index.js';
import { ORIENTATIONS } from './generation.prompts.js';
import { GENERATION_PROVIDERS } from './generation.settings.js';
import type { BatchItem, BatchResult, GenerateResult, ImageView } from './generation.service.js';
import type { BreakerState } from './provider-chain.js';

export const OrientationEnum = builder.enumType('GenerationOrientation', { values: ORIENTATIONS });
const ProviderEnum = answerEnum('GenerationProvider', { values: GENERATION_PROVIDERS });
const BreakerStateEnum = builder.enumType('GenerationBreakerState', {
  description: 'closed: tried as usual; open: passed over until its cool-down ends (then one trial call decides); half_open: a trial call is running',
  values: ['closed', 'open', 'half_open'] as const satisfies readonly BreakerState[],
});

const provider = z.enum(GENERATION_PROVIDERS).describe('the provider that made it');
const image = z
  .object({
    index: count.describe('0-based'),
    title: z.string().describe('the variation title'),
    provider,
    url: z.string().describe('data:image/png;base64,... usable directly as an image source'),
  })
  .meta({ id: 'GeneratedImage', description: 'Spec "Generated image"' });
answerObject<ImageView>('GeneratedImage', image);

export const generationResult = z.object({ prompt: z.string(), count: count.describe('images delivered'), provider, images: z.array(image) });
export const GenerationResultRef = answerObject<GenerateResult>('GenerationResult', generationResult, {
  fields: () => ({ count: { description: 'Images delivered (a provider may deliver fewer than asked; only those are charged)' } }),
  more: (t) => ({ creditsCharged: t.exposeFloat('creditsCharged', { description: 'API credits charged: GENERATE_CREDITS_PER_IMAGE per delivered image' }) }),
});

const batchItem = z.object({
  index: count,
  description: z.string(),
  success: z.boolean(),
  provider: provider.nullable(),
  images: z.array(image).describe('one image on success, none on failure'),
  error: z.string().nullable().describe('why this description failed'),
  status: z.int().describe('the HTTP status this description alone would have had'),
});
answerObject<BatchItem>('GenerationBatchItem', batchItem);

export const batchResult = z.object({ count: count.describe('descriptions'), succeeded: count, failed: count, results: z.array(batchItem), credits_charged: z.number() });
export const BatchResultRef = answerObject<BatchResult>('GenerationBatchResult', batchResult);

const ProviderStateRef = builder.objectRef<{ name: (typeof GENERATION_PROVIDERS)[number]; state: BreakerState; position: number }>('GenerationProviderState').implement({
  fields: (t) => ({
    name: t.field({ type: ProviderEnum, resolve: (p) => p.name }),
    position: t.exposeInt('position', { description: '0-based place in GENERATE_PROVIDER_ORDER among the configured ones' }),
    state: t.field({ type: BreakerStateEnum, resolve: (p) => p.state }),
  }),
});

// Its own type rather than Job's: a key with the generate scope starts the job (reading jobs needs scrape).
export const QueuedJobRef = builder.objectRef<Pick<Job, 'id' | 'state'>>('QueuedGenerationJob').implement({
  description: 'A queued generation job: follow it with job / jobUpdated, or GET /api/jobs/{id} (scope scrape)',
  fields: (t) => ({
    databaseId: t.exposeInt('id'),
    state: t.exposeString('state', { description: 'queued' }),
  }),
});

builder.queryField('generationProviders', (t) =>
  t.field({
    type: [ProviderStateRef],
    description: 'The configured generation providers in the order they are tried, with their circuit state',
    authScopes: authScopesOf(SCOPE.generate),
    resolve: (_root, _args, ctx) => ctx.services.generation.chain.states().map((p, position) => ({ ...p, position })),
  }),
);
