// GraphQL surface of image analysis: the analyzeImage mutation (a mutation: it may call paid
// providers, charged to the caller's credits, and it takes an upload).
import { builder } from '../../graphql/builder.js';
import { authScopesOf, SCOPE } from '../access/index.js';
import { PROVIDER_CHOICES, VISION_TASKS } from './vision.types.js';
import type { TimedVisionResult } from './vision.service.js';

const VisionTaskEnum = builder.enumType('VisionTask', {
  description: 'ocr: text only; describe: caption and labels; all: both',
  values: VISION_TASKS,
});

const VisionProviderEnum = builder.enumType('VisionProvider', {
  description: 'auto tries the configured external providers in order (each costs 1 API credit, so only while the account has credits), then local (free)',
  values: PROVIDER_CHOICES,
});

const AnalyzeImageInput = builder.inputType('AnalyzeImageInput', {
  description: 'POST /api/vision/analyze: exactly one of imageData and imageFile',
  fields: (t) => ({
    task: t.field({ type: VisionTaskEnum, description: 'default all' }),
    provider: t.field({ type: VisionProviderEnum, description: 'default auto' }),
    imageData: t.string({ description: 'The image base64-encoded, optionally as a data: URI' }),
    imageFile: t.field({ type: 'File', description: 'The image as an upload (GraphQL multipart request)' }),
  }),
});

const VisionResultRef = builder.objectRef<TimedVisionResult>('VisionResult').implement({
  description: 'Spec "Vision result"; fields the task did not ask for are empty',
  fields: (t) => ({
    text: t.exposeString('text'),
    caption: t.exposeString('caption'),
    labels: t.exposeStringList('labels'),
    providerUsed: t.exposeString('providerUsed', { description: 'openai, google_vision, ocr_space or local' }),
    confidence: t.exposeFloat('confidence', { description: '0 to 1' }),
    timestamp: t.exposeFloat('timestamp', { description: 'Seconds since the epoch when the analysis finished' }),
  }),
});

builder.mutationField('analyzeImage', (t) =>
  t.field({
    type: VisionResultRef,
    description: 'Text (OCR), a caption and labels for an image (spec "Vision")',
    authScopes: authScopesOf(SCOPE.media),
    errors: {},
    args: { input: t.arg({ type: AnalyzeImageInput, required: true }) },
    resolve: (_root, { input }, ctx) =>
      ctx.services.vision.analyzeRequest(
        { task: input.task, provider: input.provider, image_data: input.imageData, image_file: input.imageFile },
        { payer: ctx.actor!.accountId },
      ),
  }),
);
