// GraphQL types of image generation and the providers' state; the operations (generateImages,
// startReplaceGeneration, generateBatch) are declared in generation.operations.ts.
import { builder } from '../../graphql/builder.js';
import { authScopesOf, SCOPE } from '../access/index.js';
import type { Job } from '../jobs/index.js';
import { ORIENTATIONS } from './generation.prompts.js';
import { GENERATION_PROVIDERS } from './generation.settings.js';
import type { BatchItem, BatchResult, GenerateResult, ImageView } from './generation.service.js';
import type { BreakerState } from './provider-chain.js';

export const OrientationEnum = builder.enumType('GenerationOrientation', { values: ORIENTATIONS });
const ProviderEnum = builder.enumType('GenerationProvider', { values: GENERATION_PROVIDERS });
const BreakerStateEnum = builder.enumType('GenerationBreakerState', {
  description: 'closed: tried as usual; open: passed over until its cool-down ends (then one trial call decides); half_open: a trial call is running',
  values: ['closed', 'open', 'half_open'] as const satisfies readonly BreakerState[],
});

const GeneratedImageRef = builder.objectRef<ImageView>('GeneratedImage').implement({
  description: 'Spec "Generated image"',
  fields: (t) => ({
    index: t.exposeInt('index', { description: '0-based' }),
    title: t.exposeString('title', { description: 'The variation title' }),
    provider: t.field({ type: ProviderEnum, resolve: (i) => i.provider }),
    url: t.exposeString('url', { description: 'data:image/png;base64,... usable directly as an image source' }),
  }),
});

export const GenerationResultRef = builder.objectRef<GenerateResult>('GenerationResult').implement({
  fields: (t) => ({
    prompt: t.exposeString('prompt'),
    count: t.exposeInt('count', { description: 'Images delivered (a provider may deliver fewer than asked; only those are charged)' }),
    provider: t.field({ type: ProviderEnum, resolve: (r) => r.provider }),
    images: t.field({ type: [GeneratedImageRef], resolve: (r) => r.images }),
    creditsCharged: t.exposeFloat('creditsCharged', { description: 'API credits charged: GENERATE_CREDITS_PER_IMAGE per delivered image' }),
  }),
});

const BatchItemRef = builder.objectRef<BatchItem>('GenerationBatchItem').implement({
  fields: (t) => ({
    index: t.exposeInt('index'),
    description: t.exposeString('description'),
    success: t.exposeBoolean('success'),
    provider: t.field({ type: ProviderEnum, nullable: true, resolve: (r) => r.provider }),
    images: t.field({ type: [GeneratedImageRef], resolve: (r) => r.images }),
    error: t.exposeString('error', { nullable: true }),
    status: t.exposeInt('status', { description: 'The HTTP status this description alone would have had' }),
  }),
});

export const BatchResultRef = builder.objectRef<BatchResult>('GenerationBatchResult').implement({
  fields: (t) => ({
    count: t.exposeInt('count'),
    succeeded: t.exposeInt('succeeded'),
    failed: t.exposeInt('failed'),
    results: t.field({ type: [BatchItemRef], resolve: (r) => r.results }),
    creditsCharged: t.exposeFloat('creditsCharged'),
  }),
});

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
