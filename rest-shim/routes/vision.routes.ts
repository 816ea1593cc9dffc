// Spec "Vision": POST /api/vision/analyze, and the legacy POST /api/ocr (spec "Versioning"), both
// as JSON (image_data, base64) or multipart (image_file; the legacy route also takes `file`).
import { defineRoute, type RestInput } from '../route.js';
import { optionalString, type Source } from '../input.js';
import { unwrap } from '../result.js';
import { AnalyzeImageDocument, type VisionProvider, type VisionTask } from '../generated/operations.js';
import { InvalidInput } from '../../src/platform/errors.js';
import { PROVIDER_CHOICES, VISION_TASKS } from '../../src/modules/vision/vision.types.js';

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
