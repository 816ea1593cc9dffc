// scrape: POST /api/scrape's job (same options, same service, same `scrape` scope), waited for
// within the pipeline's deadline. Its files are this run's images from then on (pipeline.images.ts).
import { z } from 'zod';
import { SCOPE } from '../../access/index.js';
import type { Asset, Job } from '../../../generated/prisma/client.js';
import { AppError, ErrorCode } from '../../../platform/errors.js';
import { scrapeInputSchema } from '../../scrape/index.js';
import type { PipelineDeps } from '../pipeline.deps.js';
import { DeadlinePassed, defineAction, pause } from './action.js';

const FIRST_POLL_MS = 100;
const LONGEST_POLL_MS = 1_000;

const file = z.object({
  url: z.string().describe('where the file was found'),
  download_url: z.string().describe('the stored copy: GET /files/{job_id}/{filename} (with the key)'),
  filename: z.string(),
  type: z.string().describe('image, video or document'),
  content_type: z.string(),
  size: z.int().describe('bytes'),
  width: z.int().nullable(),
  height: z.int().nullable(),
  ai_label: z.string().nullable().describe('ai_labeling: comma-separated labels'),
});

export const scrapeOutputs = z.object({
  job_id: z.int().describe('the scrape job (GET /api/jobs/{job_id})'),
  count: z.int().describe('files stored'),
  urls: z.array(z.string()).describe('where each stored file was found, in the order of images'),
  images: z.array(file).describe('the stored files'),
});

export function scrapeAction(deps: PipelineDeps) {
  return defineAction({
    name: 'scrape',
    summary: 'Runs a scrape job (the options of POST /api/scrape) and waits for it within the deadline: the files it stored',
    key: SCOPE.scrape,
    params: scrapeInputSchema,
    outputs: scrapeOutputs,
    ownDeadline: true,
    run: async (ctx, _params, raw) => {
      const started = await deps.scrape.start(ctx.actor, raw);
      const job = await finished(deps, started.id, ctx.signal);
      if (job.state === 'failed') throw new AppError(`scrape job ${job.id} failed: ${job.error ?? 'no reason recorded'}`, 502, ErrorCode.ScrapeFailed);
      if (job.state !== 'completed') {
        throw new DeadlinePassed(`the pipeline's deadline passed while scrape job ${job.id} was ${job.state}; the job goes on: poll /api/jobs/${job.id}`);
      }
      const withFiles = (await deps.jobs.getOwned(ctx.actor, job.id, { include: { assets: { orderBy: { id: 'asc' } } } })) as Job & { assets: Asset[] };
      const images = withFiles.assets.map((asset) => {
        const downloadUrl = `${ctx.baseUrl}/files/${job.id}/${encodeURIComponent(asset.filename)}`;
        ctx.images.rememberBlob([asset.url, downloadUrl], asset.storageKey);
        return {
          url: asset.url,
          download_url: downloadUrl,
          filename: asset.filename,
          type: asset.type,
          content_type: asset.contentType,
          size: asset.size,
          width: asset.width,
          height: asset.height,
          ai_label: asset.aiLabel,
        };
      });
      return { job_id: job.id, count: images.length, urls: images.map((i) => i.url), images };
    },
  });
}

/** The job once it has ended, or as it is when the deadline passes. */
async function finished(deps: PipelineDeps, jobId: number, signal: AbortSignal): Promise<Job> {
  let wait = FIRST_POLL_MS;
  for (;;) {
    const job = await deps.jobs.get(jobId);
    if (!job) throw new AppError(`scrape job ${jobId} is gone`, 500, ErrorCode.JobGone);
    if (job.state === 'completed' || job.state === 'failed' || signal.aborted) return job;
    await pause(wait, signal);
    wait = Math.min(LONGEST_POLL_MS, Math.round(wait * 1.5));
  }
}
