// Spec "Vision": POST /api/vision/analyze, and the legacy POST /api/ocr (spec "Versioning"), both
// as JSON (image_data, base64) or multipart (image_file; the legacy route also takes `file`).
// analyze is declared in src/modules/vision/vision.operations.ts; written here: the legacy row, which
// runs the same field with an input of its own (task ocr only, the file also as `file`) and a flat answer.
import { z } from 'zod';
import { defineRoute } from '../route.js';
import { SCOPE } from '../../src/modules/access/index.js';
import { unwrap } from '../result.js';
import { answerAs, restRoutesOf } from '../derive.js';
import { AnalyzeImageDocument } from '../generated/operations.js';
import { ocrRequestSchema } from '../../src/modules/vision/vision.input.js';
import { visionErrors, visionOperations } from '../../src/modules/vision/vision.operations.js';
import { confidence, providerUsed, seconds } from '../../src/modules/vision/vision.schema.js';

const ocrResponse = z.object({ text: z.string(), confidence, provider_used: providerUsed, timestamp: seconds });

export const visionRoutes = [
  ...restRoutesOf(visionOperations),
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
    response: ocrResponse,
    errors: visionErrors,
    variables: ({ body }) => ({ input: { task: 'ocr' as const, provider: body.provider, imageData: body.image_data, imageFile: body.image_file ?? body.file } }),
    shape: (data) => answerAs(ocrResponse, unwrap(data.analyzeImage)),
  }),
];
