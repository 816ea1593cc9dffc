// Our service, used the way a client uses it: the built service started as `npm start` starts it
// (test/helpers/service-process.ts), then POST /api/scrape in crawl mode (render: true, or plain for
// the comparison count) and GET /api/jobs/{id} until the job is done. The parent samples the
// service's whole process tree (the service, a crawl process if the job forks one, Chromium and its
// children); this process is only the client.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { NO_QUOTA } from '../faults/common.js';
import { pollJob, runNotes, scrapeAndWait, type Client } from '../crawl/ours.js';
import { startServiceProcess, type ServiceProcess } from '../../test/helpers/service-process.js';
import type { RenderCrawlResult } from './common.js';

export interface OursOptions {
  render: boolean;
  startUrl: string;
  tmpRoot: string;
  pollMs: number;
  chromiumPath: string;
  /** RENDER_CONCURRENCY; undefined for the configured default (2). */
  renderConcurrency?: number;
}

/** Starts the service, tells the parent its pid (to sample), waits for `go`, then scrapes. */
export async function runOurs(options: OursOptions, started: (rootPid: number) => Promise<void>): Promise<RenderCrawlResult> {
  const dataDir = mkdtempSync(join(options.tmpRoot, 'ours-'));
  let service: ServiceProcess | undefined;
  try {
    const env: Record<string, string> = {
      NODE_ENV: 'production',
      LOG_LEVEL: 'info', // the start-up lines say when the process is ready
      DATA_DIR: dataDir,
      TIERS: NO_QUOTA,
      FETCH_ALLOW_PRIVATE: '127.0.0.1',
      SCRAPE_HOST_DELAY_MS: '0',
      WORKER_CONCURRENCY: '1',
      RENDER_CHROMIUM_PATH: options.chromiumPath,
      ...(options.renderConcurrency ? { RENDER_CONCURRENCY: String(options.renderConcurrency) } : {}),
    };
    const api = await startServiceProcess('main', { ...env, HOST: '127.0.0.1', PORT: '0' }, 'service started');
    service = api.process;
    const client: Client = {
      base: String(api.ready.url),
      key: (JSON.parse(readFileSync(join(dataDir, 'initial-account.json'), 'utf8')) as { api_key: string }).api_key,
      pollMs: options.pollMs,
    };
    // One small request first, so first-request costs are paid before the measurement, as in a running service.
    await pollJob(client, 999_999).catch(() => undefined);
    await started(service.child.pid!);
    const run = await scrapeAndWait(client, { url: options.startUrl, sniper_mode: false, crawl_depth: 2, max_files: 10_000, render: options.render }, () => {});
    const seconds = (Date.parse(run.job.finished_at!) - run.posted) / 1000;
    return {
      crawler: options.render ? `ours, render: true (RENDER_CONCURRENCY ${options.renderConcurrency ?? 'default 2'})` : 'ours, plain (render: false)',
      pages: run.job.progress.pages_fetched,
      images: run.job.progress.assets_stored,
      seconds,
      rootPid: service.child.pid!,
      notes: runNotes(run, options.pollMs),
    };
  } catch (error) {
    if (service && service.child.exitCode !== null) throw new Error(`${(error as Error).message}\nlast log lines:\n${service.log.slice(-20).join('\n')}`);
    throw error;
  } finally {
    await service?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
