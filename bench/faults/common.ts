// Shared by the fault scripts: the built service's processes (test/helpers/service-process.ts)
// with their log collected, an HTTP client that never waits forever, a seeded random source, the
// generated crawl site in a process of its own, and small report helpers.
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { startServiceProcess, type ServiceProcess } from '../../test/helpers/service-process.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const HUGE = 1_000_000_000; // quota limits nobody reaches: the fault scripts poll a lot

/** Quota tiers nobody reaches, as JSON for TIERS; the operator's tier too (the first start's key is on it). */
const unlimited = { daily: HUGE, perMinute: HUGE };
export const NO_QUOTA = JSON.stringify({ standard: unlimited, pro: unlimited, enterprise: unlimited, operator: unlimited });

export interface LogRecord {
  at: number;
  level: number;
  msg: string;
  line: string;
}

export interface Started {
  process: ServiceProcess;
  url: string;
  pid: number;
  /** Warnings and errors (pino level ≥ 40) the process logged, and anything on stderr (level 60). */
  problems: LogRecord[];
  /** The first such line of each message, whole (for the error's type and code). */
  firstLines: Map<string, string>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts a built service process and keeps its warnings and errors. */
export async function startService(entry: 'main' | 'worker', env: Record<string, string>, distDir: string): Promise<Started> {
  const { process: proc, ready } = await startServiceProcess(entry, env, entry === 'main' ? 'service started' : 'worker started', distDir);
  const problems: LogRecord[] = [];
  const firstLines = new Map<string, string>();
  createInterface({ input: proc.child.stdout! }).on('line', (line) => {
    if (!line.startsWith('{')) return;
    try {
      const record = JSON.parse(line) as { level?: number; msg?: string };
      if ((record.level ?? 0) >= 40) {
        problems.push({ at: Date.now(), level: record.level!, msg: String(record.msg), line });
        if (!firstLines.has(String(record.msg))) firstLines.set(String(record.msg), line);
      }
    } catch {
      // not JSON
    }
  });
  createInterface({ input: proc.child.stderr! }).on('line', (line) => problems.push({ at: Date.now(), level: 60, msg: `stderr: ${line.slice(0, 200)}`, line }));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    if (proc.child.exitCode !== null || proc.child.signalCode !== null) resolve({ code: proc.child.exitCode, signal: proc.child.signalCode });
    else proc.child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  return { process: proc, url: String(ready.url ?? ''), pid: proc.child.pid!, problems, firstLines, exited };
}

export function initialKey(dataDir: string): string {
  return (JSON.parse(readFileSync(join(dataDir, 'initial-account.json'), 'utf8')) as { api_key: string }).api_key;
}

export interface Answer {
  /** HTTP status; 0 when no answer came (connection refused or reset, or the client timeout). */
  status: number;
  body: unknown;
  text: string;
  ms: number;
  /** Why there was no answer: 'timeout' or the network error's code. */
  error?: string;
  sentAt: number;
}

/** One HTTP request that gives up after timeoutMs (a hang shows as error 'timeout'). */
export async function request(url: string, init: RequestInit = {}, timeoutMs = 10_000): Promise<Answer> {
  const sentAt = Date.now();
  const started = performance.now();
  try {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
    const text = await response.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON: kept as text
    }
    return { status: response.status, body, text, ms: performance.now() - started, sentAt };
  } catch (error) {
    const e = error as Error & { cause?: { code?: string } };
    const reason = e.name === 'TimeoutError' || e.name === 'AbortError' ? 'timeout' : (e.cause?.code ?? e.message);
    return { status: 0, body: null, text: '', ms: performance.now() - started, error: reason, sentAt };
  }
}

/** A seeded random source (mulberry32), so a run can be replayed with FAULTS_SEED. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function seedFromEnv(): number {
  const raw = process.env.FAULTS_SEED;
  return raw ? Number(raw) : Math.floor(Math.random() * 2 ** 31);
}

export function intEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, got ${raw}`);
  return value;
}

export interface CrawlSite {
  url: string;
  close(): Promise<void>;
}

/**
 * The crawl benchmark's generated site (bench/crawl/site.ts: a start page, 32 hubs, 968 leaves,
 * five distinct images per page) served by a child process of its own.
 */
export async function startCrawlSite(): Promise<CrawlSite> {
  const child: ChildProcess = fork(fileURLToPath(new URL('./crawl-site.ts', import.meta.url)), [], {
    execArgv: process.execArgv,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the crawl site exited with ${code}`)));
    child.on('message', (message: { type: string; manifest?: { url: string } }) => {
      if (message.type === 'ready') resolve(message.manifest!.url);
    });
  });
  return {
    url,
    close: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.disconnect();
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Is the process still there (not a zombie)? */
export function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

export function machine(): string {
  return `${cpus()[0]?.model.replace(/\s+/g, ' ').trim() ?? 'unknown CPU'} × ${cpus().length}, ${Math.round(totalmem() / 1024 ** 3)} GB, Node ${process.version}, ${process.platform} ${process.arch}; load average (1 min) ${loadavg()[0]!.toFixed(2)} at the start`;
}

export function table(header: string[], rows: Array<Array<string | number>>, align?: Array<'l' | 'r'>): string {
  const line = (cells: Array<string | number>) => `| ${cells.map((c) => String(c).replace(/\|/g, '\\|').replace(/\n/g, ' ')).join(' | ')} |`;
  const rule = `| ${header.map((_h, i) => ((align?.[i] ?? 'l') === 'r' ? '---:' : '---')).join(' | ')} |`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}

export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** The working tree the service was built from, for the report. */
export function gitState(): string {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'src', 'rest-shim', 'prisma'], { cwd: ROOT, encoding: 'utf8' }).trim();
    return dirty ? `${head} with uncommitted changes in src/rest-shim (other work in progress)` : head;
  } catch {
    return 'unknown';
  }
}
