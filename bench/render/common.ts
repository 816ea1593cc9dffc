// Shared by the render benchmark's processes: what a crawler child reports, and the sampler of a
// whole process tree (a service or crawler, the crawl process it forks, Chromium and all its
// children) from /proc, run by the parent so no crawler pays for it.
import { readdirSync, readFileSync } from 'node:fs';
import { procCpuSeconds, procMemoryMb } from '../../test/helpers/service-process.js';

/** What each crawler child sends back to the parent over IPC. */
export interface RenderCrawlResult {
  crawler: string;
  pages: number;
  /** Distinct images stored (distinct bytes: every image of the site has bytes of its own). */
  images: number;
  seconds: number;
  /** The process whose tree is "everything this crawler runs" (the service for ours, the child for Crawlee). */
  rootPid: number;
  notes: string[];
}

export type RenderChildMessage = { type: 'started'; rootPid: number } | { type: 'result'; result: RenderCrawlResult } | { type: 'error'; message: string };

export interface TreeSample {
  /** The highest sum of RSS over the tree in one sample, in MB. */
  peakRssMb: number;
  /** Processes in the tree at that sample, and the most seen in one sample. */
  processesAtPeak: number;
  maxProcesses: number;
  /** CPU seconds used by the tree's processes while sampled (processes that ended between samples lose their last slice). */
  cpuSeconds: number;
  /** The same CPU seconds by process name (node, chromium ...). */
  cpuByName: Record<string, number>;
}

/** pid → parent pid of every process, from one pass over /proc. */
function parents(): Map<number, number> {
  const map = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      map.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone while we looked
    }
  }
  return map;
}

/** `root` and all its descendants. */
function treeOf(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const [pid, ppid] of parents()) children.set(ppid, [...(children.get(ppid) ?? []), pid]);
  const out: number[] = [];
  const walk = (pid: number) => {
    out.push(pid);
    for (const child of children.get(pid) ?? []) walk(child);
  };
  walk(root);
  return out;
}

/**
 * Samples the RSS of `root` and every process under it every `everyMs` until stop(); processes that
 * start meanwhile (Chromium's renderers, a crawl process) are counted from the sample that sees them.
 */
export function sampleTree(root: number, everyMs = 200): { stop(): TreeSample } {
  const cpuFirst = new Map<number, number>();
  const cpuLast = new Map<number, number>();
  const names = new Map<number, string>();
  let peak = { rss: 0, processes: 0 };
  let maxProcesses = 0;
  let first = true;
  const sample = () => {
    let rss = 0;
    let count = 0;
    for (const pid of treeOf(root)) {
      try {
        rss += procMemoryMb(pid).rss;
        const cpu = procCpuSeconds(pid);
        // Running before sampling began: only what it uses from now counts; started since: all of it.
        if (!cpuFirst.has(pid)) cpuFirst.set(pid, first ? cpu : 0);
        cpuLast.set(pid, cpu);
        if (!names.has(pid)) names.set(pid, readFileSync(`/proc/${pid}/comm`, 'utf8').trim());
        count++;
      } catch {
        // ended between the listing and the read
      }
    }
    if (rss > peak.rss) peak = { rss, processes: count };
    maxProcesses = Math.max(maxProcesses, count);
    first = false;
  };
  sample();
  const timer = setInterval(sample, everyMs);
  return {
    stop() {
      sample();
      clearInterval(timer);
      let cpuSeconds = 0;
      const cpuByName: Record<string, number> = {};
      for (const [pid, last] of cpuLast) {
        const used = last - (cpuFirst.get(pid) ?? 0);
        cpuSeconds += used;
        const name = names.get(pid) ?? '?';
        cpuByName[name] = (cpuByName[name] ?? 0) + used;
      }
      return { peakRssMb: peak.rss, processesAtPeak: peak.processes, maxProcesses, cpuSeconds, cpuByName };
    },
  };
}
