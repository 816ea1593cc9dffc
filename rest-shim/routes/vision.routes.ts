// Spec "Vision": POST /api/vision/analyze, and the legacy POST /api/ocr (spec "Versioning"), both
// as JSON (image_data, base64) or multipart (image_file; the legacy route also takes `file`).
import { z } from 'zod';
import { defineRoute, type RestInput } from '../route.js';
import { optionalString, type Source } from '../input.js';
import { unwrap } from '../result.js';
import { AnalyzeImageDocument, type VisionProvider, type VisionTask } from '../generated/operations.js';
import { InvalidInput } from '../../src/platform/errors.js';
import { PROVIDER_CHOICES, VISION_TASKS } from '../../src/modules/vision/vision.types.js';

const choices = {
  task: z.enum(VISION_TASKS).default('all').describe('ocr: the text; describe: caption and labels; all: both'),
  provider: z.enum(PROVIDER_CHOICES).default('auto').describe('auto tries the configured providers in order, then the local one'),
};
const imageData = z.string().describe('the image base64-encoded, optionally as a data: URI (JPEG, PNG, WebP, GIF, TIFF or AVIF)');
const imageFileField = z.file().describe('the image file');
const providerUsed = z.string().describe('openai, google_vision, ocr_space or local');
const confidence = z.number().min(0).max(1);
const seconds = z.number().describe('seconds since the epoch when the analysis finished');
const visionErrors = {
  413: 'the image is larger than the limit',
  502: 'the provider (or every provider, for auto) failed',
  503: 'the provider named is not configured or is busy',
} as const;

/** A documented choice, case-insensitive; unknown values are refused with the allowed ones. */
function choice<T extends string>(source: Source, name: string, allowed: readonly T[]): T | undefined {
  const value = optionalString(source, name)?.trim().toLowerCase();
  if (value === undefined || value === '') return undefined;
  if (!(allowed as readonly string[]).includes(value)) throw new InvalidInput(`${name}: expected one of ${allowed.join(', ')} (got '${value.slice(0, 40)}')`, name);
  return value as T;
}

function imageFile({ files }: RestInput, names: string[]): File | undefined {
  const given = names.filter((n) => files[n]);
  if (given.length > 1) throw new InvalidInput(`send one file, in ${names.join(' or ')}`, given[1]);
  return given[0] ? files[given[0]] : undefined;
}

export const visionRoutes = [
  defineRoute({
    method: 'POST',
    path: '/api/vision/analyze',
    auth: 'key',
    scope: 'media',
    multipart: { files: ['image_file'] },
    summary: 'Text (OCR), caption and labels of an image: task ocr, describe or all; provider auto or a named one',
    operation: AnalyzeImageDocument,
    request: { body: z.object({ image_data: imageData, ...choices }), form: z.object({ image_file: imageFileField, ...choices }) },
    response: z.object({
      data: z.object({ text: z.string(), caption: z.string(), labels: z.array(z.string()), provider_used: providerUsed, confidence }),
      timestamp: seconds,
    }),
    errors: visionErrors,
    variables: (input) => ({
      input: {
        task: choice<VisionTask>(input.body, 'task', VISION_TASKS),
        provider: choice<VisionProvider>(input.body, 'provider', PROVIDER_CHOICES),
        imageData: optionalString(input.body, 'image_data'),
        imageFile: imageFile(input, ['image_file']),
      },
    }),
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
    scope: 'media',
    multipart: { files: ['image_file', 'file'] },
    summary: 'Legacy OCR: the text of an image (same inputs as /api/vision/analyze, task ocr)',
    operation: AnalyzeImageDocument,
    request: {
      body: z.object({ image_data: imageData, task: z.literal('ocr').optional(), provider: choices.provider }),
      form: z.object({ image_file: imageFileField.optional(), file: imageFileField.optional().describe('the image file (instead of image_file)'), task: z.literal('ocr').optional(), provider: choices.provider }),
    },
    response: z.object({ text: z.string(), confidence, provider_used: providerUsed, timestamp: seconds }),
    errors: visionErrors,
    variables: (input) => {
      const task = choice<VisionTask>(input.body, 'task', VISION_TASKS);
      if (task && task !== 'ocr') throw new InvalidInput('task: /api/ocr only reads text (task ocr); use /api/vision/analyze for describe or all', 'task');
      return {
        input: {
          task: 'ocr' as const,
          provider: choice<VisionProvider>(input.body, 'provider', PROVIDER_CHOICES),
          imageData: optionalString(input.body, 'image_data'),
          imageFile: imageFile(input, ['image_file', 'file']),
        },
      };
    },
    shape: (data) => {
      const r = unwrap(data.analyzeImage);
      return { text: r.text, confidence: r.confidence, provider_used: r.providerUsed, timestamp: r.timestamp };
    },
  }),
];
