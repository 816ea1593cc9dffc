// Vision operations declared once (docs/architecture.md): analyzeImage (spec "Vision"), `media`
// scope; a mutation: it may call paid providers, charged to the caller's credits, and it takes an
// upload. The rules live in vision.service.ts. The legacy POST /api/ocr (spec "Versioning") is a
// second row of the same field with a request of its own and a flat answer.
import { z } from 'zod';
import { defineMutation, defineOperations } from '../../graphql/operation.js';
import { SCOPE } from '../access/index.js';
import { confidence, providerUsed, seconds, VisionProviderEnum, VisionResultRef, VisionTaskEnum, visionResult } from './vision.schema.js';
import { analyzeFields, analyzeRequestSchema, ocrRequestSchema } from './vision.input.js';
import { answerFrom } from '../../platform/wire.js';

export const visionErrors = {
  413: 'the image is larger than the limit',
  502: 'the provider (or every provider, for auto) failed',
  503: 'the provider named is not configured or is busy',
} as const;

export const visionOperations = defineOperations({
  analyzeImage: defineMutation({
    description: 'Text (OCR), a caption and labels for an image (spec "Vision")',
    key: SCOPE.media,
    input: analyzeRequestSchema,
    inputType: 'AnalyzeImageInput',
    args: { task: VisionTaskEnum, provider: VisionProviderEnum },
    output: VisionResultRef,
    run: ({ ctx, actor, input }) => ctx.services.vision.analyzeRequest(input, { payer: actor.accountId }),
    rest: [
      {
        route: 'POST /api/vision/analyze',
        summary: 'Text (OCR), caption and labels of an image: task ocr, describe or all; provider auto or a named one',
        // JSON: the fields without the file; multipart: the same with image_file. The service checks that one image came.
        form: { files: ['image_file'], json: analyzeFields.omit({ image_file: true }) },
        response: answerFrom(
          z.object({ data: visionResult, timestamp: seconds }),
          { data: '' },
        ),
        errors: visionErrors,
      },
      {
        route: 'POST /api/ocr',
        summary: 'Legacy OCR: the text of an image (same inputs as /api/vision/analyze, task ocr)',
        // One schema for JSON and form: it holds the rule of the legacy `file` field, which the service does not know.
        input: ocrRequestSchema,
        form: { files: ['image_file', 'file'], json: ocrRequestSchema },
        fixed: { task: 'ocr' },
        variables: (variables, { files }) => (files.file ? { ...variables, input: { ...(variables.input as object), imageFile: files.file } } : variables),
        response: z.object({ text: z.string(), confidence, provider_used: providerUsed, timestamp: seconds }),
        errors: visionErrors,
      },
    ],
  }),
});
