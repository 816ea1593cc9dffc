// analyze and ocr: the vision service of POST /api/vision/analyze and POST /api/ocr (same `media`
// scope, same providers; an external provider costs its API credits per image, as there), over
// images given by URL: this run's own images are read directly, others through the SSRF-safe
// fetcher. An image that cannot be read or analysed is listed under `errors`; the step fails only
// when no image could be analysed.
import { z } from 'zod';
import { SCOPE } from '../../access/index.js';
import { AppError } from '../../../platform/errors.js';
import { loadSharp } from '../../../platform/sharp.js';
import { absoluteHttpUrl, exactlyOneOf } from '../../../platform/validation.js';
import { PROVIDER_CHOICES } from '../../vision/index.js';
import type { PipelineDeps } from '../pipeline.deps.js';
import { defineAction, type StepContext } from './action.js';

export const MAX_ANALYZE_URLS = 100;
export const MAX_ANALYZED_IMAGES = 20;
export const MAX_OCR_IMAGES = 20;
const TOP_LABELS = 10;

const imageUrl = absoluteHttpUrl('expected an image URL', { nonEmpty: true, max: 4096 });
const provider = z
  .enum(PROVIDER_CHOICES, { error: `expected one of ${PROVIDER_CHOICES.join(', ')}` })
  .default('auto')
  .describe('auto tries the configured external providers in order (each costs its API credits), then the local one');
const failure = z.object({ url: z.string(), error: z.string() });

export const analyzeParams = z.object({
  urls: z
    .array(imageUrl, { error: 'urls is required: an array of image URLs' })
    .min(1, 'expected at least one URL')
    .max(MAX_ANALYZE_URLS, `expected at most ${MAX_ANALYZE_URLS} URLs`)
    .describe('the images; the first max_images are analysed'),
  max_images: z
    .int({ error: `expected an integer from 1 to ${MAX_ANALYZED_IMAGES}` })
    .min(1, `expected an integer from 1 to ${MAX_ANALYZED_IMAGES}`)
    .max(MAX_ANALYZED_IMAGES, `expected an integer from 1 to ${MAX_ANALYZED_IMAGES}`)
    .default(5)
    .describe('how many of urls are analysed (in order)'),
  provider,
});

export const analyzeOutputs = z.object({
  count: z.int().describe('images analysed'),
  summary: z.string().describe('one sentence: how many images, the most common labels, the first caption'),
  top_labels: z.array(z.string()).describe(`the most common labels (lower case), most frequent first, at most ${TOP_LABELS}`),
  label_counts: z.array(z.object({ label: z.string(), count: z.int() })).describe('images showing each of top_labels'),
  urls: z.array(z.string()).describe('the images analysed, in order'),
  images: z.array(
    z.object({
      url: z.string(),
      caption: z.string(),
      labels: z.array(z.string()),
      width: z.int(),
      height: z.int(),
      provider_used: z.string(),
      confidence: z.number(),
    }),
  ),
  errors: z.array(failure).describe('images that could not be read or analysed'),
});

export const ocrParams = z
  .object({
    url: imageUrl.optional().describe('one image'),
    urls: z.array(imageUrl).min(1, 'expected at least one URL').max(MAX_OCR_IMAGES, `expected at most ${MAX_OCR_IMAGES} URLs`).optional().describe('several images'),
    provider,
  })
  .superRefine(exactlyOneOf('url', 'urls', 'the image(s) to read'));

export const ocrOutputs = z.object({
  count: z.int().describe('images read'),
  text: z.string().describe('the text of every image read, separated by blank lines'),
  items: z.array(z.object({ url: z.string(), text: z.string(), confidence: z.number(), provider_used: z.string() })),
  errors: z.array(failure),
});

/** Runs `analyze` on each URL in order; an AppError on one image is recorded, anything else thrown. */
async function eachImage<T>(ctx: StepContext, urls: readonly string[], analyze: (bytes: Buffer, url: string, field: string) => Promise<T>) {
  const done: T[] = [];
  const errors: Array<{ url: string; error: string; cause: AppError }> = [];
  for (const [i, url] of urls.entries()) {
    const field = `urls[${i}]`;
    try {
      done.push(await analyze(await ctx.images.bytes(url, field, ctx.signal), url, field));
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      errors.push({ url, error: error.message, cause: error });
    }
  }
  // Nothing analysed: the step fails with the first image's reason (402, 400 ...), as the route would.
  if (done.length === 0 && errors.length > 0) throw errors[0]!.cause;
  return { done, errors: errors.map(({ url, error }) => ({ url, error })) };
}

export function analyzeAction(deps: PipelineDeps) {
  return defineAction({
    name: 'analyze',
    summary: 'Captions and labels of images by URL (the vision service of POST /api/vision/analyze, task describe), with the most common labels',
    key: SCOPE.media,
    params: analyzeParams,
    outputs: analyzeOutputs,
    run: async (ctx, params) => {
      const sharp = await loadSharp();
      const { done, errors } = await eachImage(ctx, params.urls.slice(0, params.max_images), async (image, url, field) => {
        const result = await deps.vision.analyze({ image, task: 'describe', provider: params.provider, field, payer: ctx.actor.accountId });
        const { width = 0, height = 0 } = await sharp(image, { limitInputPixels: false }).metadata();
        return { url, caption: result.caption, labels: result.labels, width, height, provider_used: result.providerUsed, confidence: result.confidence };
      });
      const counts = new Map<string, number>();
      for (const image of done) for (const label of new Set(image.labels.map((l) => l.toLowerCase()))) counts.set(label, (counts.get(label) ?? 0) + 1);
      const top = [...counts.entries()].sort((a, b) => b[1] - a[1]).slice(0, TOP_LABELS);
      const labelsText = top.length ? `most common labels: ${top.map(([label, n]) => `${label} (${n})`).join(', ')}` : 'no labels found';
      const caption = done.find((i) => i.caption)?.caption;
      const summary = `${done.length} image${done.length === 1 ? '' : 's'} analysed; ${labelsText}${caption ? `. First: ${caption}` : ''}`;
      return {
        count: done.length,
        summary,
        top_labels: top.map(([label]) => label),
        label_counts: top.map(([label, count]) => ({ label, count })),
        urls: done.map((i) => i.url),
        images: done,
        errors,
      };
    },
  });
}

export function ocrAction(deps: PipelineDeps) {
  return defineAction({
    name: 'ocr',
    summary: 'The text in images by URL (the vision service of POST /api/ocr)',
    key: SCOPE.media,
    params: ocrParams,
    outputs: ocrOutputs,
    run: async (ctx, params) => {
      const urls = params.urls ?? [params.url!];
      const { done, errors } = await eachImage(ctx, urls, async (image, url, field) => {
        const result = await deps.vision.analyze({ image, task: 'ocr', provider: params.provider, field, payer: ctx.actor.accountId });
        return { url, text: result.text, confidence: result.confidence, provider_used: result.providerUsed };
      });
      return { count: done.length, text: done.map((i) => i.text).filter(Boolean).join('\n\n'), items: done, errors };
    },
  });
}
