// Spec "Vision": POST /api/vision/analyze, and the legacy POST /api/ocr (spec "Versioning"), both
// as JSON (image_data, base64) or multipart (image_file; the legacy route also takes `file`).
import { z } from 'zod';
import { defineRoute } from '../route.js';
import { SCOPE } from '../../src/modules/access/index.js';
import { unwrap } from '../result.js';
import { AnalyzeImageDocument } from '../generated/operations.js';
import { analyzeFields, analyzeRequestSchema, ocrRequestSchema } from '../../src/modules/vision/vision.input.js';

const providerUsed = z.string().describe('openai, google_vision, ocr_space or local');
const confidence = z.number().min(0).max(1);
const seconds = z.number().describe('seconds since the epoch when the analysis finished');
const visionErrors = {
  413: 'the image is larger than the limit',
  502: 'the provider (or every provider, for auto) failed',
  503: 'the provider named is not configured or is busy',
} as const;

export const visionRoutes = [
  defineRoute({
    method: 'POST',
    path: '/api/vision/analyze',
    auth: 'key',
    key: SCOPE.media,
    multipart: { files: ['image_file'] },
    summary: 'Text (OCR), caption and labels of an image: task ocr, describe or all; provider auto or a named one',
    operation: AnalyzeImageDocument,
    // JSON: the fields without the file; multipart: the same with image_file. The service checks that one image came.
    request: { body: analyzeFields.omit({ image_file: true }), form: analyzeRequestSchema },
    response: z.object({
      data: z.object({ text: z.string(), caption: z.string(), labels: z.array(z.string()), provider_used: providerUsed, confidence }),
      timestamp: seconds,
    }),
    errors: visionErrors,
    variables: ({ body, files }) => ({ input: { task: body.task, provider: body.provider, imageData: body.image_data, imageFile: files.image_file } }),
    shape: (data) => {
      const r = unwrap(data.analyzeImage);
      return {
        data: { text: r.text, caption: r.caption, labels: r.labels, provider_used: r.providerUsed, confidence: r.confidence },
        timestamp: r.timestamp,
      };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/api/ocr',
    auth: 'key',
    key: SCOPE.media,
    multipart: { files: ['image_file', 'file'] },
    summary: 'Legacy OCR: the text of an image (same inputs as /api/vision/analyze, task ocr)',
    operation: AnalyzeImageDocument,
    // One schema for both forms: it holds the rule of the legacy `file` field, which the service does not know.
    request: { body: ocrRequestSchema, form: ocrRequestSchema },
    response: z.object({ text: z.string(), confidence, provider_used: providerUsed, timestamp: seconds }),
    errors: visionErrors,
    variables: ({ body }) => ({ input: { task: 'ocr' as const, provider: body.provider, imageData: body.image_data, imageFile: body.image_file ?? body.file } }),
    shape: (data) => {
      const r = unwrap(data.analyzeImage);
      return { text: r.text, confidence: r.confidence, provider_used: r.providerUsed, timestamp: r.timestamp };
    },
  }),
];
