// replace: ReplaceFlow (POST /api/replaceflow: the `search` scope, the same service) for an article:
// its watermarked featured image and clean versions of it.
import { z } from 'zod';
import { SCOPE } from '../../access/index.js';
import { replaceflowSchema } from '../../replaceflow/index.js';
import type { PipelineDeps } from '../pipeline.deps.js';
import { defineAction } from './action.js';

const entry = z.object({
  type: z.enum(['source_lead', 'clean_discovery']),
  url: z.string(),
  is_watermarked: z.boolean(),
  domain: z.string(),
  source: z.string().nullable(),
  quality_score: z.int().nullable().describe('clean_discovery only'),
  width: z.int().nullable(),
  height: z.int().nullable(),
  phash_distance: z.int().nullable().describe('Hamming distance to the source lead; null when phash is false'),
  phash_match: z.boolean().nullable(),
});

export const replaceOutputs = z.object({
  headline: z.string().nullable(),
  source_domain: z.string(),
  watermarked_url: z.string(),
  count: z.int().describe('entries in results, the source lead included'),
  urls: z.array(z.string()).describe('the clean discoveries\' URLs, best first'),
  results: z.array(entry).describe('the source lead first, then clean discoveries, best first'),
});

export function replaceAction(deps: PipelineDeps) {
  return defineAction({
    name: 'replace',
    summary: "ReplaceFlow (the params of POST /api/replaceflow): an article's watermarked featured image and clean versions of it",
    key: SCOPE.search,
    params: replaceflowSchema,
    outputs: replaceOutputs,
    run: async (ctx, params) => {
      const r = await deps.replaceflow.find(ctx.actor, params, ctx.baseUrl);
      const results = r.results.map((e) => ({
        type: e.type,
        url: e.url,
        is_watermarked: e.isWatermarked,
        domain: e.domain,
        source: e.source,
        quality_score: e.qualityScore,
        width: e.width,
        height: e.height,
        phash_distance: e.phashDistance,
        phash_match: e.phashMatch,
      }));
      return {
        headline: r.headline,
        source_domain: r.sourceDomain,
        watermarked_url: r.watermarkedUrl,
        count: r.count,
        urls: results.filter((e) => e.type === 'clean_discovery').map((e) => e.url),
        results,
      };
    },
  });
}
