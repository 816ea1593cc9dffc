// Spec "Scraping": start a scrape, poll its job, fetch its files one by one or as one ZIP.
import { defineRoute, defineStreamRoute } from '../route.js';
import { optionalBool, optionalInt, optionalString, type Source } from '../input.js';
import { unwrap } from '../result.js';
import { GetJobDocument, StartScrapeDocument, type GetJobQuery } from '../generated/operations.js';
import { InvalidInput } from '../../src/platform/errors.js';
import { sendJobFile, sendJobArchive } from '../../src/http/files.js';

/** Path ids are integers; anything else is a 404 like an unknown job. */
export function jobIdParam(params: Record<string, string>, name = 'job_id'): number {
  const value = params[name] ?? '';
  if (!/^\d{1,9}$/.test(value)) throw new InvalidInput(`${name}: expected an integer job id`, name);
  return Number(value);
}

/** Job as polled (spec "Job result"); success is false only for a failed job. */
function jobJson(job: NonNullable<GetJobQuery['job']>) {
  const base = { status: job.state, job_id: job.databaseId };
  const progress = { pages_fetched: job.pagesFetched, assets_found: job.assetsFound, assets_stored: job.assetsStored };
  const times = { kind: job.kind, created_at: job.createdAt, started_at: job.startedAt, finished_at: job.finishedAt };
  if (job.state === 'failed') return { success: false, ...base, error: job.error ?? 'the job failed', progress, ...times };
  if (job.state !== 'completed') return { success: true, ...base, message: `the job is ${job.state}; poll again in 2 to 5 seconds`, progress, ...times };
  return {
    success: true,
    ...base,
    assets: {
      count: job.assets.totalCount,
      items: job.assets.edges.map(({ node: a }) => ({
        id: a.databaseId,
        filename: a.filename,
        url: a.url,
        type: a.type,
        size: a.size,
        ai_label: a.aiLabel,
        download_url: a.downloadUrl,
        content_type: a.contentType,
      })),
    },
    download_url: null as string | null,
    progress,
    cached_from_job_id: job.cachedFromJobId,
    ...times,
  };
}

function scrapeVariables(body: Source) {
  return {
    input: {
      url: optionalString(body, 'url') ?? '',
      sniperMode: optionalBool(body, 'sniper_mode'),
      maxFiles: optionalInt(body, 'max_files'),
      minSizeKb: optionalInt(body, 'min_size_kb'),
      keywordFilter: optionalString(body, 'keyword_filter'),
      downloadVideos: optionalBool(body, 'download_videos'),
      downloadDocs: optionalBool(body, 'download_docs'),
      aiLabeling: optionalBool(body, 'ai_labeling'),
      crawlDepth: optionalInt(body, 'crawl_depth'),
      force: optionalBool(body, 'force'),
    },
  };
}

export const jobsRoutes = [
  defineRoute({
    method: 'POST',
    path: '/api/scrape',
    auth: 'key',
    scope: 'scrape',
    summary: 'Start a scrape job (sniper: the page; crawl: same-site links to crawl_depth)',
    operation: StartScrapeDocument,
    successStatus: 202,
    variables: ({ body }) => scrapeVariables(body),
    shape: (data) => {
      const job = unwrap(data.startScrape);
      const poll = `/api/jobs/${job.databaseId}`;
      return { status: job.state, job_id: job.databaseId, message: `scrape job queued; poll ${poll} every 2 to 5 seconds until its status is completed or failed`, poll_url: poll };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/jobs/:job_id',
    auth: 'key',
    scope: 'scrape',
    summary: 'A job: status and progress; assets with download URLs once completed',
    operation: GetJobDocument,
    variables: ({ params }) => ({ id: jobIdParam(params), first: 10_000 }),
    shape: (data, input) => {
      const { success: _success, ...rest } = jobJson(data.job);
      if ('download_url' in rest) rest.download_url = `${input.baseUrl}/download/${data.job.databaseId}`;
      return rest;
    },
    successFlag: (data) => data.job.state !== 'failed',
  }),
  defineStreamRoute({
    method: 'GET',
    path: '/files/:job_id/:filename',
    auth: 'key',
    scope: 'scrape',
    summary: 'One stored file of a job (Range, ETag and If-None-Match supported)',
    handle: (context, { params }, req, res) => sendJobFile(context, jobIdParam(params), params.filename ?? '', req, res),
  }),
  defineStreamRoute({
    method: 'GET',
    path: '/download/:job_id',
    auth: 'key',
    scope: 'scrape',
    summary: "A ZIP of all of a completed job's files, streamed",
    handle: (context, { params }, _req, res) => sendJobArchive(context, jobIdParam(params), res),
  }),
];
