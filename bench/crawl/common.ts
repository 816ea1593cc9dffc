// Shared by the crawl benchmark's processes: what a crawler child reports, the memory sampler and
// the check that the files on disk are exactly the site's images.
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';

/** What the site server says about itself once it listens. */
export interface SiteManifest {
  url: string;
  pages: number;
  hubs: number;
  images: number;
  /** Sum of the bytes of every image, to compare with what a crawler stored. */
  imageBytes: number;
  htmlBytes: number;
  /** Image bytes per format, for the report. */
  formats: Record<string, { count: number; minKb: number; maxKb: number; meanKb: number }>;
}

/** Requests the site answered (cumulative; the parent takes differences around each run). */
export interface SiteStats {
  pages: number;
  images: number;
  robots: number;
  notFound: number;
  bytes: number;
  /** CPU seconds of the server process (user + system). */
  cpuSeconds: number;
}

/** What each crawler child sends back to the parent over IPC. */
export interface CrawlResult {
  crawler: string;
  pages: number;
  assets: number;
  /** Files on disk after the run and their total bytes (checked against the manifest). */
  filesOnDisk: number;
  bytesOnDisk: number;
  seconds: number;
  baselineRssMb: number;
  peakRssMb: number;
  /** The kernel's own high-water mark (VmHWM) for the whole process life, as a cross-check. */
  vmHwmMb: number | null;
  cpuSeconds: number;
  notes: string[];
  // Only for our service: the process that ran the job (it forked the crawl process), and the
  // highest sum of the two in one sample.
  jobProcessPeakRssMb?: number;
  totalPeakRssMb?: number;
  // Only for a crawler measured from inside its own process (Crawlee, our in-process diagnostic);
  // our service processes are sampled from outside, through /proc.
  peakHeapUsedMb?: number;
  /** process.memoryUsage() in MB at the baseline and at the sample with the highest RSS. */
  memoryAt?: { baseline: MemoryBreakdown; peak: MemoryBreakdown };
  gcMs?: number;
  loopDelayP99Ms?: number;
  loopDelayMaxMs?: number;
  /** The measured window in microseconds of the monotonic clock (CPU profiles use the same clock). */
  windowUs?: [number, number];
}

export interface MemoryBreakdown {
  rss: number;
  heapTotal: number;
  heapUsed: number;
  /** Memory of C++ objects bound to JS, including Buffers and WebAssembly memories. */
  external: number;
  arrayBuffers: number;
}

export type ChildMessage = { type: 'result'; result: CrawlResult } | { type: 'error'; message: string };

export const MB = 1024 * 1024;
const SAMPLE_MS = 50;

export interface Monitor {
  stop(): Required<Pick<CrawlResult, 'baselineRssMb' | 'peakRssMb' | 'peakHeapUsedMb' | 'memoryAt' | 'cpuSeconds' | 'gcMs' | 'loopDelayP99Ms' | 'loopDelayMaxMs' | 'windowUs'>>;
}

const nowUs = () => Number(process.hrtime.bigint() / 1000n);

function breakdown(usage: NodeJS.MemoryUsage): MemoryBreakdown {
  return { rss: usage.rss / MB, heapTotal: usage.heapTotal / MB, heapUsed: usage.heapUsed / MB, external: usage.external / MB, arrayBuffers: usage.arrayBuffers / MB };
}

/**
 * Samples RSS every 50 ms from now until stop(), with CPU time, GC time and event-loop delay over
 * the same window. The baseline is the RSS at start (the crawler built, nothing crawled yet).
 */
export function startMonitor(): Monitor {
  const first = process.memoryUsage();
  const baseline = first.rss;
  let peakRss = baseline;
  let atPeak = first;
  let peakHeap = first.heapUsed;
  const sample = () => {
    const usage = process.memoryUsage();
    if (usage.rss > peakRss) {
      peakRss = usage.rss;
      atPeak = usage;
    }
    if (usage.heapUsed > peakHeap) peakHeap = usage.heapUsed;
  };
  const timer = setInterval(sample, SAMPLE_MS);
  let gcMs = 0;
  const gc = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) gcMs += entry.duration;
  });
  gc.observe({ entryTypes: ['gc'] });
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const cpu = process.cpuUsage();
  const startedUs = nowUs();
  return {
    stop() {
      const stoppedUs = nowUs();
      sample();
      clearInterval(timer);
      gc.disconnect();
      loop.disable();
      const used = process.cpuUsage(cpu);
      return {
        baselineRssMb: baseline / MB,
        peakRssMb: peakRss / MB,
        peakHeapUsedMb: peakHeap / MB,
        memoryAt: { baseline: breakdown(first), peak: breakdown(atPeak) },
        cpuSeconds: (used.user + used.system) / 1e6,
        gcMs,
        loopDelayP99Ms: loop.percentile(99) / 1e6,
        loopDelayMaxMs: loop.max / 1e6,
        windowUs: [startedUs, stoppedUs],
      };
    },
  };
}

/** VmHWM from /proc (Linux only): the peak resident set since the process started. */
export function kernelPeakRssMb(): number | null {
  try {
    const match = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8'));
    return match ? Number(match[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/** Files under a folder (recursively) and their total size; `skip` leaves out sidecars and the like. */
export function filesUnder(dir: string, skip: (name: string) => boolean = () => false): { files: number; bytes: number } {
  let files = 0;
  let bytes = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      const inner = filesUnder(path, skip);
      files += inner.files;
      bytes += inner.bytes;
    } else if (entry.isFile() && !skip(entry.name)) {
      files++;
      bytes += statSync(path).size;
    }
  }
  return { files, bytes };
}

/** Lets the allocator settle and, when the child was started with --expose-gc, collects first. */
export async function settle(): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  await new Promise((resolve) => setTimeout(resolve, 200));
}

/** Ends a benchmark's site-server child: disconnecting ends it (see runSiteServer); the kill is for one that hangs. */
export async function stopSiteServer(server: ChildProcess): Promise<void> {
  if (server.connected) server.disconnect();
  const killer = setTimeout(() => server.kill(), 5_000);
  if (server.exitCode === null) await new Promise((resolve) => server.once('exit', resolve));
  clearTimeout(killer);
}

/** A site server's answer to one request; undefined: 404. */
export interface SiteAnswer {
  type: string;
  body: Buffer | string;
}

/**
 * The benchmarks' site servers (crawl/site.ts, render/site.ts), each in a child process of its own:
 * answers from `answer` (which counts what it serves in `stats`; a 404 counts as notFound), listens
 * on 127.0.0.1:0, sends `{ type: 'ready', manifest }`, replies to `{ type: 'stats' }` with the counts
 * and its CPU seconds, and ends when the parent disconnects. `sent` sees the bytes of every answer.
 */
export async function serveSiteInChild<S extends { notFound: number }>(
  stats: S,
  answer: (url: URL) => SiteAnswer | undefined,
  manifestOf: (url: string) => object,
  sent?: (bytes: number) => void,
): Promise<void> {
  const server = createServer((req, res) => {
    const send = (status: number, { type, body }: SiteAnswer) => {
      sent?.(Buffer.byteLength(body));
      res.writeHead(status, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(body), 'Cache-Control': 'public, max-age=3600' });
      res.end(body);
    };
    const found = answer(new URL(req.url ?? '/', 'http://x'));
    if (found) return send(200, found);
    stats.notFound++;
    send(404, { type: 'text/html', body: '<h1>not found</h1>' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  process.send!({ type: 'ready', manifest: manifestOf(`http://127.0.0.1:${(server.address() as AddressInfo).port}`) });
  process.on('message', (message: { type: string }) => {
    if (message.type !== 'stats') return;
    const cpu = process.cpuUsage();
    process.send!({ type: 'stats', stats: { ...stats, cpuSeconds: (cpu.user + cpu.system) / 1e6 } });
  });
  // The parent going away (normally or not) ends the server.
  process.on('disconnect', () => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  });
}

/**
 * Runs a Crawlee crawler (crawl/crawlee.ts, render/crawlee.ts) with its temp folders under `tmpRoot`:
 * `outDir` for the images it stores and Crawlee's own storage, so nothing lands in the working
 * directory; removed afterwards. `notes` words Crawlee's final statistics for the report.
 */
export async function inCrawleeWorkDir<T>(
  tmpRoot: string,
  run: (dirs: { outDir: string; notes: (stats: CrawleeFinalStats, failed: number) => string[] }) => Promise<T>,
): Promise<T> {
  const workDir = mkdtempSync(join(tmpRoot, 'crawlee-'));
  const outDir = join(workDir, 'images');
  process.env.CRAWLEE_STORAGE_DIR = join(workDir, 'storage');
  const hadStorage = existsSync(join(process.cwd(), 'storage'));
  const notes = (stats: CrawleeFinalStats, failed: number) => {
    const lines = [`Crawlee stats: ${stats.requestsFinished} requests finished, ${stats.requestsFailed} failed, ${stats.retryHistogram.slice(1).reduce<number>((s, n) => s + (n ?? 0), 0)} retried`];
    if (failed > 0) lines.push(`${failed} requests failed for good`);
    if (!hadStorage && existsSync(join(process.cwd(), 'storage'))) lines.push('warning: ./storage exists in the working directory');
    return lines;
  };
  try {
    await mkdir(outDir);
    return await run({ outDir, notes });
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}

/** What crawler.run() resolves with, as far as the notes read it. */
export interface CrawleeFinalStats {
  requestsFinished: number;
  requestsFailed: number;
  retryHistogram: Array<number | undefined>;
}

/** A benchmark file's roles by its first argument: `--serve` (the site), `--run <crawler> <options>` (one crawler), or the parent. */
export function runBenchRole(serve: () => Promise<void>, runChild: (name: string, options: string) => Promise<void>, main: () => Promise<void>): void {
  const [role, arg1, arg2] = process.argv.slice(2);
  const entry = role === '--serve' ? serve() : role === '--run' ? runChild(arg1 ?? '', arg2 ?? '{}') : main();
  entry.catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
    // A child must not linger with its IPC channel open after a failure.
    if (role) process.exit(1);
  });
}
