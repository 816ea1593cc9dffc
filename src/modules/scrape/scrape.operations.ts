// The scrape operation, declared once (docs/architecture.md): start a scrape job, then follow it
// with job / jobUpdated (GET /api/jobs/{id}). Spec "Scraping": POST /api/scrape.
import { z } from 'zod';
import { defineOperation } from '../../graphql/operation.js';
import { SCOPE } from '../access/index.js';
import { answerFrom, id } from '../../platform/wire.js';
import { JobRef } from '../jobs/jobs.schema.js';
import { JOB_STATES } from '../jobs/index.js';
import { scrapeInputSchema } from './scrape.input.js';

export const scrapeOperations = {
  startScrape: defineOperation({
    kind: 'mutation',
    name: 'startScrape',
    key: SCOPE.scrape,
    input: scrapeInputSchema,
    inputType: 'ScrapeInput',
    output: JobRef,
    prisma: true,
    run: ({ ctx, actor, input }) => ctx.services.scrape.start(actor, input),
    rest: {
      method: 'POST',
      path: '/api/scrape',
      operationName: 'StartScrape',
      summary: 'Start a scrape job (sniper: the page; crawl: same-site links to crawl_depth)',
      successStatus: 202,
      response: answerFrom(z.object({ status: z.enum(JOB_STATES), job_id: id, message: z.string(), poll_url: z.string().describe('GET it to follow the job') }), {
        status: 'state',
        job_id: 'databaseId',
        message: null,
        poll_url: null,
      }),
      shape: (answer) => {
        const poll = `/api/jobs/${String(answer.job_id)}`;
        return { ...answer, message: `scrape job queued; poll ${poll} every 2 to 5 seconds until its status is completed or failed`, poll_url: poll };
      },
    },
  }),
};
