// filter: keeps the images of an earlier step (or a list of URLs) that match every criterion given:
// a label, a keyword, a file type, a least width and height, an orientation; then the first `limit`.
// Items keep every field they came with. An item whose size a criterion needs and that does not
// carry width and height (plain URLs, search results without sizes) is measured from its header:
// this run's own images directly, others fetched through the SSRF-safe fetcher; one that cannot be
// measured is dropped and counted in `unmeasured`. Any key may filter (it calls no paid service).
import PQueue from 'p-queue';
import { z } from 'zod';
import { ANY_KEY } from '../../access/index.js';
import { AppError } from '../../../platform/errors.js';
import { exactlyOneOf } from '../../../platform/validation.js';
import type { PipelineDeps } from '../pipeline.deps.js';
import { defineAction, type StepContext } from './action.js';

export const MAX_FILTER_ITEMS = 500;
const MEASURE_CONCURRENCY = 4;
export const FILTER_ORIENTATIONS = ['landscape', 'portrait', 'square'] as const;

const dimension = (what: string) =>
  z
    .int({ error: 'expected an integer number of pixels' })
    .min(1, 'expected at least 1')
    .max(100_000, 'expected at most 100000')
    .optional()
    .describe(`keep images at least this ${what} (pixels)`);
const text = (what: string) => z.string({ error: 'expected a string' }).trim().min(1, 'expected a non-empty string').max(200, 'expected at most 200 characters').optional().describe(what);

const item = z.looseObject({ url: z.string({ error: 'expected an object with a url' }).min(1, 'expected a url').max(4096, 'expected at most 4096 characters') });

export const filterParams = z
  .object({
    images: z.array(item, { error: 'expected an array of objects with a url' }).max(MAX_FILTER_ITEMS, `expected at most ${MAX_FILTER_ITEMS} items`).optional().describe('items with a url (and any other fields): the images of scrape, search, generate or analyze'),
    urls: z.array(z.string({ error: 'expected a URL' }).min(1).max(4096), { error: 'expected an array of URLs' }).max(MAX_FILTER_ITEMS, `expected at most ${MAX_FILTER_ITEMS} URLs`).optional().describe('plain image URLs'),
    label: text('keep items with this label (case-insensitive): in labels (analyze) or ai_label (scrape with ai_labeling)'),
    keyword: text('keep items with this text (case-insensitive) in url, title, caption, filename, text or their labels'),
    type: z.enum(['image', 'video', 'document'], { error: 'expected one of image, video, document' }).optional().describe('keep scrape files of this type'),
    min_width: dimension('wide'),
    min_height: dimension('high'),
    orientation: z
      .enum(FILTER_ORIENTATIONS, { error: `expected one of ${FILTER_ORIENTATIONS.join(', ')}` })
      .optional()
      .describe('landscape: wider than 1.05 x the height; portrait: taller than 1.05 x the width; square: in between'),
    limit: z.int({ error: `expected an integer from 1 to ${MAX_FILTER_ITEMS}` }).min(1, 'expected at least 1').max(MAX_FILTER_ITEMS, `expected at most ${MAX_FILTER_ITEMS}`).optional().describe('keep at most this many (the first that match)'),
  })
  .superRefine(exactlyOneOf('images', 'urls', 'what to filter'));

export const filterOutputs = z.object({
  count: z.int().describe('items kept'),
  dropped: z.int().describe('items that did not match (or past limit)'),
  unmeasured: z.int().describe('items dropped because their size was needed and could not be read'),
  urls: z.array(z.string()).describe('the kept items\' URLs'),
  images: z.array(z.looseObject({ url: z.string(), width: z.int().nullable(), height: z.int().nullable() })).describe('the kept items, with every field they came with, and their size when known'),
});

type Item = z.output<typeof item> & { width?: unknown; height?: unknown };

const texts = (value: unknown): string[] => (typeof value === 'string' ? [value] : Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);
const labelsOf = (i: Item) => [...texts(i.labels), ...texts(i.ai_label).flatMap((l) => l.split(','))].map((l) => l.trim().toLowerCase()).filter(Boolean);
const size = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : null);

export function orientationOf(width: number, height: number): (typeof FILTER_ORIENTATIONS)[number] {
  if (width > 1.05 * height) return 'landscape';
  if (height > 1.05 * width) return 'portrait';
  return 'square';
}

export function filterAction(_deps: PipelineDeps) {
  return defineAction({
    name: 'filter',
    summary: 'Keeps the images (or URLs) that match a label, keyword, type, least width and height, or orientation',
    key: ANY_KEY,
    params: filterParams,
    outputs: filterOutputs,
    run: async (ctx, params) => {
      const items: Item[] = params.images ?? params.urls!.map((url) => ({ url }));
      const label = params.label?.toLowerCase();
      const keyword = params.keyword?.toLowerCase();
      // The criteria that need no size first: fewer images to measure.
      const candidates = items.filter((i) => {
        if (params.type && i.type !== params.type) return false;
        if (label && !labelsOf(i).includes(label)) return false;
        if (keyword) {
          const haystack = [i.url, ...texts(i.title), ...texts(i.caption), ...texts(i.filename), ...texts(i.text), ...labelsOf(i)].join('\n').toLowerCase();
          if (!haystack.includes(keyword)) return false;
        }
        return true;
      });
      const needsSize = params.min_width !== undefined || params.min_height !== undefined || params.orientation !== undefined;
      const sized = needsSize ? await measured(ctx, candidates) : candidates.map((i) => ({ item: i, width: size(i.width), height: size(i.height) }));
      const unmeasured = sized.filter((s) => s.width === null || s.height === null).length;
      const matching = sized.filter(({ width, height }) => {
        if (!needsSize) return true;
        if (width === null || height === null) return false;
        if (params.min_width !== undefined && width < params.min_width) return false;
        if (params.min_height !== undefined && height < params.min_height) return false;
        return params.orientation === undefined || orientationOf(width, height) === params.orientation;
      });
      const kept = matching.slice(0, params.limit ?? MAX_FILTER_ITEMS).map(({ item: i, width, height }) => ({ ...i, width, height }));
      return { count: kept.length, dropped: items.length - kept.length, unmeasured: needsSize ? unmeasured : 0, urls: kept.map((i) => i.url), images: kept };
    },
  });
}

/** Items with their sizes: as they carry them, or read from the image (null when it cannot be read). */
async function measured(ctx: StepContext, items: Item[]) {
  const queue = new PQueue({ concurrency: MEASURE_CONCURRENCY });
  return Promise.all(
    items.map((item, index) =>
      queue.add(async () => {
        const [width, height] = [size(item.width), size(item.height)];
        if (width !== null && height !== null) return { item, width, height };
        try {
          const found = await ctx.images.measure(item.url, `images[${index}].url`, ctx.signal);
          return { item, width: found?.width ?? null, height: found?.height ?? null };
        } catch (error) {
          if (!(error instanceof AppError) && !(error instanceof Error && /Input buffer|unsupported image format/i.test(error.message))) throw error;
          return { item, width: null, height: null };
        }
      }),
    ),
  ) as Promise<Array<{ item: Item; width: number | null; height: number | null }>>;
}
