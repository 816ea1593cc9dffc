// Reads a V8 CPU profile (--cpu-prof) and says where the crawl window's time went: each sample is
// billed to the nearest package or src/ file on its stack, counting from the leaf (WebAssembly and
// Node internals are billed to the JS that called them), and separately to the nearest src/
// function. Used by crawl.bench.ts when BENCH_CPU_PROF is set.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

const SPECIAL = new Set(['(garbage collector)', '(idle)', '(program)']);

function owner(url: string): string | null {
  const pkg = /node_modules\/((@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  for (const folder of ['/src/', '/rest-shim/', '/bench/']) {
    const at = url.lastIndexOf(folder);
    if (at >= 0) return url.slice(at + 1).replace(/^bench\/.*/, 'bench');
  }
  return null;
}

/** The main thread's profile in `dir` (tsx's loader thread writes a smaller one next to it). */
export function mainProfile(dir: string): string | undefined {
  const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
  return files.map((f) => join(dir, f)).sort((a, b) => statSync(b).size - statSync(a).size)[0];
}

export function summarizeProfile(file: string, windowUs: [number, number], top = 15): string {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const byOwner = new Map<string, number>();
  const bySrc = new Map<string, number>();
  const add = (map: Map<string, number>, key: string, us: number) => map.set(key, (map.get(key) ?? 0) + us);
  let time = profile.startTime;
  let total = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    time += profile.timeDeltas[i] ?? 0;
    const us = profile.timeDeltas[i + 1] ?? 0;
    if (time < windowUs[0] || time > windowUs[1]) continue;
    total += us;
    const leaf = byId.get(profile.samples[i]!)!.callFrame;
    let found: string | null = null;
    let src: string | null = null;
    for (let id: number | undefined = profile.samples[i]; id !== undefined; id = parent.get(id)) {
      const frame = byId.get(id)!.callFrame;
      const key = owner(frame.url);
      found ??= key;
      if (!src && key?.startsWith('src/')) src = `${key} ${frame.functionName || '(anonymous)'}`;
    }
    add(byOwner, SPECIAL.has(leaf.functionName) && !leaf.url ? leaf.functionName : (found ?? '(node internals)'), us);
    add(bySrc, src ?? '(no src/ frame on the stack)', us);
  }
  const table = (map: Map<string, number>) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([key, us]) => `${(us / 1000).toFixed(0).padStart(7)} ms ${((100 * us) / total).toFixed(1).padStart(5)}%  ${key}`)
      .join('\n');
  return [
    `${file}: ${(total / 1e6).toFixed(1)} s sampled in the crawl window`,
    'by nearest package or file (from the leaf up):',
    table(byOwner),
    'by nearest src/ function:',
    table(bySrc),
  ].join('\n');
}
