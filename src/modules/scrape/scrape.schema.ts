// GraphQL surface of scraping: start a scrape job (then follow it with job / jobUpdated).
import { builder } from '../../graphql/builder.js';
import { authScopesOf, SCOPE } from '../access/index.js';
import { JobRef } from '../jobs/jobs.schema.js';

const ScrapeInput = builder.inputType('ScrapeInput', {
  description: 'Options of POST /api/scrape (same names, same defaults)',
  fields: (t) => ({
    url: t.string({ required: true }),
    sniperMode: t.boolean({ description: 'true (default): this page only; false: follow same-site links' }),
    maxFiles: t.int({ description: 'default 100' }),
    minSizeKb: t.float(),
    keywordFilter: t.string(),
    downloadVideos: t.boolean(),
    downloadDocs: t.boolean(),
    aiLabeling: t.boolean(),
    crawlDepth: t.int({ description: '0 to 2; crawl mode only (default 1)' }),
    force: t.boolean({ description: 'bypass the cache of recent identical scrapes' }),
  }),
});

builder.mutationField('startScrape', (t) =>
  t.prismaField({
    type: JobRef,
    authScopes: authScopesOf(SCOPE.scrape),
    errors: {},
    args: { input: t.arg({ type: ScrapeInput, required: true }) },
    resolve: (_query, _root, { input }, ctx) =>
      ctx.services.scrape.start(ctx.actor!, {
        url: input.url,
        sniper_mode: input.sniperMode ?? undefined,
        max_files: input.maxFiles ?? undefined,
        min_size_kb: input.minSizeKb ?? undefined,
        keyword_filter: input.keywordFilter ?? undefined,
        download_videos: input.downloadVideos ?? undefined,
        download_docs: input.downloadDocs ?? undefined,
        ai_labeling: input.aiLabeling ?? undefined,
        crawl_depth: input.crawlDepth ?? undefined,
        force: input.force ?? undefined,
      }),
  }),
);
