// search: the unified ranked search of POST /api/images/search (same service; a key, so the `search`
// scope and the caller's private tiers). An image_url this run already holds (a generated image, a
// scraped file) is searched by its bytes, as image_data, instead of being fetched again.
import { z } from 'zod';
import { SCOPE } from '../../access/index.js';
import { searchRequestSchema } from '../../search/index.js';
import type { PipelineDeps } from '../pipeline.deps.js';
import { defineAction } from './action.js';

const image = z.object({
  url: z.string(),
  title: z.string(),
  source: z.string().describe('my_private_library, my_public_atlas, global_atlas, or a stock library'),
  quality_score: z.number(),
  width: z.int().nullable(),
  height: z.int().nullable(),
  page_url: z.string().nullable().describe('stock images: their page'),
  attribution: z.string().nullable().describe('stock images: the credit line'),
  is_private: z.boolean(),
  is_verified: z.boolean(),
});

export const searchOutputs = z.object({
  query: z.string().describe('the words searched: the query, or the keywords taken from the image'),
  count: z.int().describe('images in this answer'),
  total_found: z.int().describe('distinct images found before the answer was cut to limit'),
  urls: z.array(z.string()).describe('the images\' URLs, best first'),
  images: z.array(image).describe('best first'),
});

export function searchAction(deps: PipelineDeps) {
  return defineAction({
    name: 'search',
    summary: 'Unified ranked image search (the params of POST /api/images/search): query text, or image_url / image_data for near copies',
    key: SCOPE.search,
    params: searchRequestSchema,
    outputs: searchOutputs,
    run: async (ctx, params, raw) => {
      let input = raw;
      if (params.image_url !== undefined && ctx.images.has(params.image_url)) {
        const { image_url: url, ...rest } = raw;
        input = { ...rest, image_data: (await ctx.images.bytes(String(url), 'image_url', ctx.signal)).toString('base64') };
      }
      const answer = await deps.search.search(ctx.actor, input, ctx.baseUrl);
      const images = answer.images.map((i) => ({
        url: i.url,
        title: i.title,
        source: i.source,
        quality_score: i.qualityScore,
        width: i.width,
        height: i.height,
        page_url: i.pageUrl ?? null,
        attribution: i.attribution ?? null,
        is_private: i.isPrivate === true,
        is_verified: i.isVerified === true,
      }));
      return { query: answer.query, count: images.length, total_found: answer.totalFound, urls: images.map((i) => i.url), images };
    },
  });
}
