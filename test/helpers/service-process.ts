// Our service as users run it: the built JavaScript (`npm run build`) started the way `npm start`
// and `npm run worker` start it, configured through the environment only, in processes of its own.
// Used by test/build/build.test.ts and the crawl benchmark (bench/crawl/ours.ts), which also samples
// the processes' RSS and CPU time from /proc, so nothing of the caller's own counts against them.
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** Where `npm run build` writes. */
export const DIST_DIR = join(ROOT, 'dist');
const CLOCK_TICKS_PER_SECOND = 100; // USER_HZ, 100 on Linux x86-64 and arm64
const SAMPLE_MS = 50;
const START_TIMEOUT_MS = 120_000;

export interface ServiceProcess {
  child: ChildProcess;
  /** The last lines the process wrote (pino JSON on stdout, anything on stderr), kept for errors. */
  log: string[];
  /** SIGTERM (SIGKILL after 15 s); resolves with the exit code (null when killed by a signal). */
  stop(): Promise<number | null>;
}

/**
 * The node flags `npm start` / `npm run worker` pass (package.json), so the benchmark runs the
 * processes exactly as those scripts do, without npm's own process in between. BENCH_NODE_ARGS
 * replaces them, to compare flags.
 */
export function nodeFlags(script: 'start' | 'worker'): string[] {
  if (process.env.BENCH_NODE_ARGS !== undefined) return process.env.BENCH_NODE_ARGS.split(' ').filter(Boolean);
  return scriptCommand(script).words.slice(1).filter((word) => word.startsWith('--'));
}

/** The environment the script sets before `node` (`MALLOC_ARENA_MAX=2 node ...`), as the shell would. */
export function scriptEnv(script: 'start' | 'worker'): Record<string, string> {
  return scriptCommand(script).env;
}

function scriptCommand(script: 'start' | 'worker'): { env: Record<string, string>; words: string[] } {
  const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const words = scripts[script]!.split(/\s+/);
  const env: Record<string, string> = {};
  while (words[0] && /^[A-Z_][A-Z0-9_]*=\S*$/.test(words[0])) {
    const [name, ...value] = words.shift()!.split('=');
    env[name!] = value.join('=');
  }
  if (words[0] !== 'node') throw new Error(`package.json scripts.${script} should run node (after variable assignments): ${scripts[script]}`);
  return { env, words };
}

/**
 * Starts `<distDir>/src/<entry>.js` with exactly the given environment (plus PATH and what the npm
 * script sets before node; the given environment wins) and resolves when
 * a log line with the given message appears; rejects if the process exits first.
 */
export async function startServiceProcess(
  entry: 'main' | 'worker',
  env: Record<string, string>,
  readyMessage: string,
  distDir = DIST_DIR,
): Promise<{ process: ServiceProcess; ready: Record<string, unknown> }> {
  const child = spawn(process.execPath, [...nodeFlags(entry === 'main' ? 'start' : 'worker'), join(distDir, 'src', `${entry}.js`)], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...scriptEnv(entry === 'main' ? 'start' : 'worker'), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const log: string[] = [];
  const keep = (line: string) => {
    log.push(line);
    if (log.length > 200) log.shift();
  };
  createInterface({ input: child.stderr! }).on('line', keep);
  const ready = await new Promise<Record<string, unknown>>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${entry} did not log "${readyMessage}" within ${START_TIMEOUT_MS} ms:\n${log.join('\n')}`)), START_TIMEOUT_MS);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${entry} exited with ${code} before it was ready:\n${log.join('\n')}`));
    });
    createInterface({ input: child.stdout! }).on('line', (line) => {
      keep(line);
      if (!line.startsWith('{')) return;
      const record = JSON.parse(line) as Record<string, unknown>;
      if (record.msg === readyMessage) {
        clearTimeout(timer);
        resolve(record);
      }
    });
  });
  return {
    ready,
    process: {
      child,
      log,
      stop: async () => {
        if (child.exitCode !== null) return child.exitCode;
        const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
        child.kill('SIGTERM');
        const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
        const code = await exited;
        clearTimeout(killer);
        return code;
      },
    },
  };
}

/** The processes started by `pid` (children only), with their command lines, from /proc. */
export function childProcesses(pid: number): Array<{ pid: number; args: string[] }> {
  const children = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]); // field 4, ppid
      if (parent === pid) children.push({ pid: Number(entry), args: readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').filter(Boolean) });
    } catch {
      // gone while we looked
    }
  }
  return children;
}

/** VmRSS and VmHWM of a process in MB, from /proc (Linux only). */
export function procMemoryMb(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024 };
}

/** User + system CPU seconds a process has used so far, from /proc/<pid>/stat. */
export function procCpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND; // utime, stime
}

export interface ProcessTreeSample {
  /** The process sampled and the children it started while sampled (crawl processes), each on its own. */
  root: { baselineRssMb: number; peakRssMb: number; cpuSeconds: number };
  children: Array<{ pid: number; args: string[]; firstRssMb: number; peakRssMb: number; vmHwmMb: number; cpuSeconds: number }>;
  /** The highest sum of the root's and its children's RSS in one sample. */
  peakTotalRssMb: number;
}

/**
 * Samples a process and its children every 50 ms until stop(): children that appear meanwhile (a
 * crawl process forked for the job) are found at the next sample and followed from then on.
 */
export function sampleProcessTree(pid: number): { stop(): ProcessTreeSample } {
  const baseline = procMemoryMb(pid).rss;
  let peak = baseline;
  let peakTotal = baseline;
  const cpuBefore = procCpuSeconds(pid);
  let cpuLast = cpuBefore;
  const children = new Map<number, ProcessTreeSample['children'][number]>();
  const sample = () => {
    try {
      const rss = procMemoryMb(pid).rss;
      cpuLast = procCpuSeconds(pid);
      peak = Math.max(peak, rss);
      let total = rss;
      for (const child of childProcesses(pid)) {
        try {
          const memory = procMemoryMb(child.pid);
          // An exiting child (a zombie) has no VmRSS any more.
          if (Number.isNaN(memory.rss)) continue;
          const seen = children.get(child.pid) ?? { pid: child.pid, args: child.args, firstRssMb: memory.rss, peakRssMb: 0, vmHwmMb: 0, cpuSeconds: 0 };
          // Read again each time: between fork and exec a child still shows its parent's command line.
          seen.args = child.args;
          seen.peakRssMb = Math.max(seen.peakRssMb, memory.rss);
          seen.vmHwmMb = memory.hwm;
          seen.cpuSeconds = procCpuSeconds(child.pid);
          children.set(child.pid, seen);
          total += memory.rss;
        } catch {
          // the child has gone
        }
      }
      peakTotal = Math.max(peakTotal, total);
    } catch {
      // the process has gone; stop() reports what was seen
    }
  };
  const timer = setInterval(sample, SAMPLE_MS);
  return {
    stop() {
      sample();
      clearInterval(timer);
      return { root: { baselineRssMb: baseline, peakRssMb: peak, cpuSeconds: cpuLast - cpuBefore }, children: [...children.values()], peakTotalRssMb: peakTotal };
    },
  };
}
