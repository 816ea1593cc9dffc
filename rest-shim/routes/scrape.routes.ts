// Spec "Scraping": POST /api/scrape starts a scrape job (src/modules/scrape/); jobs.routes.ts polls it.
import { z } from 'zod';
import { defineRoute } from '../route.js';
import { SCOPE } from '../../src/modules/access/index.js';
import { unwrap } from '../result.js';
import { StartScrapeDocument } from '../generated/operations.js';
import { scrapeInputSchema } from '../../src/modules/scrape/scrape.input.js';
import { JOB_STATES } from '../../src/modules/jobs/jobs.service.js';
import { id } from '../schemas.js';

export const scrapeRoutes = [
  defineRoute({
    method: 'POST',
    path: '/api/scrape',
    auth: 'key',
    key: SCOPE.scrape,
    summary: 'Start a scrape job (sniper: the page; crawl: same-site links to crawl_depth)',
    operation: StartScrapeDocument,
    request: { body: scrapeInputSchema },
    response: z.object({ status: z.enum(JOB_STATES), job_id: id, message: z.string(), poll_url: z.string().describe('GET it to follow the job') }),
    successStatus: 202,
    variables: ({ body }) => ({
      input: {
        url: body.url,
        sniperMode: body.sniper_mode,
        maxFiles: body.max_files,
        minSizeKb: body.min_size_kb,
        keywordFilter: body.keyword_filter,
        downloadVideos: body.download_videos,
        downloadDocs: body.download_docs,
        aiLabeling: body.ai_labeling,
        crawlDepth: body.crawl_depth,
        force: body.force,
      },
    }),
    shape: (data) => {
      const job = unwrap(data.startScrape);
      const poll = `/api/jobs/${job.databaseId}`;
      return { status: job.state, job_id: job.databaseId, message: `scrape job queued; poll ${poll} every 2 to 5 seconds until its status is completed or failed`, poll_url: poll };
    },
  }),
];
