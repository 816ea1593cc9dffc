// The scrape operation, declared once (docs/architecture.md): start a scrape job, then follow it
// with job / jobUpdated (GET /api/jobs/{id}). Spec "Scraping": POST /api/scrape.
import { defineMutation, defineOperations } from '../../graphql/operation.js';
import { SCOPE } from '../access/index.js';
import { JobRef } from '../jobs/jobs.schema.js';
import { queuedJobAnswer } from '../jobs/index.js';
import { scrapeInputSchema } from './scrape.input.js';

export const scrapeOperations = defineOperations({
  startScrape: defineMutation({
    key: SCOPE.scrape,
    input: scrapeInputSchema,
    inputType: 'ScrapeInput',
    output: JobRef,
    prisma: true,
    run: ({ ctx, actor, input }) => ctx.services.scrape.start(actor, input),
    rest: {
      route: 'POST /api/scrape',
      operationName: 'StartScrape',
      summary: 'Start a scrape job (sniper: the page; crawl: same-site links to crawl_depth)',
      successStatus: 202,
      errors: { 503: 'render: true, and Chromium is not installed on the server (the message says how to install it)' },
      ...queuedJobAnswer('scrape'),
    },
  }),
});
