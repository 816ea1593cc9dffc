// How long `npm start` takes until GET /healthz answers 200: on an empty data folder (the first
// start: the embedded database is created) and again on the folder it made (a restart). Each run is
// the real command (npm, its prestart build, node dist/src/main.js) with a temp DATA_DIR, embedded
// PGlite, the in-process queue and local files. BENCH_START_ANCHOR=<another checkout> (an earlier
// build, with its node_modules) runs beside this one, interleaved, so the ratio holds on a busy machine.
// Beside the wall time it reports the CPU seconds (user + system) the start took until that answer:
// every process of its group (npm, sh, node) plus the children they reaped (the prestart build), from
// /proc; on a loaded machine that is the figure that compares.
//
//   BENCH_START_ANCHOR=/tmp/start-old npx tsx bench/start.bench.ts      (BENCH_ROUNDS, default 3)
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { writeResultsSection } from './results.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const TIMEOUT_MS = 180_000;
const variants = [
  { name: 'this checkout', dir: ROOT },
  ...(process.env.BENCH_START_ANCHOR ? [{ name: `anchor (${process.env.BENCH_START_ANCHOR})`, dir: process.env.BENCH_START_ANCHOR }] : []),
];
type Case = 'empty data folder' | 'restart';

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** CPU seconds (user + system) of every live process in the group, with the children each reaped. */
function groupCpuSeconds(pgid: number): number {
  let ticks = 0;
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue; // ended meanwhile
    }
    // Fields after the command name (which may hold spaces): state is field 3, pgrp 5, utime 14 .. cstime 17.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) !== pgid) continue;
    ticks += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
  }
  return ticks / TICKS_PER_SECOND;
}

/** Wall and CPU seconds from spawning `npm start` to the first 200 of /healthz; then stops the process tree. */
async function timeStart(dir: string, dataDir: string): Promise<{ wall: number; cpu: number }> {
  const began = performance.now();
  // PORT 0: the system picks a free port (other work on this machine holds ports too); the
  // 'service started' line says which, and /healthz is asked from then on.
  const child = spawn('npm', ['start'], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true, // its own process group: npm, sh and node stop together
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  let url: string | undefined;
  createInterface({ input: child.stdout }).on('line', (line) => {
    if (line.startsWith('{') && line.includes('"service started"')) url ??= (JSON.parse(line) as { url: string }).url;
  });
  let exited = false;
  const exit = new Promise<void>((resolve) => child.once('exit', () => ((exited = true), resolve())));
  try {
    for (;;) {
      if (exited) throw new Error(`npm start in ${dir} exited before it answered: ${stderr}`);
      if (performance.now() - began > TIMEOUT_MS) throw new Error(`npm start in ${dir} did not answer within ${TIMEOUT_MS} ms`);
      const status = url ? await fetch(`${url}/healthz`).then((r) => r.status, () => 0) : 0;
      if (status === 200) return { wall: (performance.now() - began) / 1000, cpu: groupCpuSeconds(child.pid!) };
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  } finally {
    if (!exited) process.kill(-child.pid!, 'SIGTERM');
    await exit;
  }
}

const seconds = new Map<string, { wall: number; cpu: number }[]>();
const loadBefore = loadavg()[0]!;
for (let round = 0; round < ROUNDS; round++) {
  // Alternating order: neither variant always runs right after the other's heavy first start.
  for (const variant of round % 2 ? [...variants].reverse() : variants) {
    const dataDir = mkdtempSync(join(tmpdir(), 'start-bench-'));
    try {
      for (const which of ['empty data folder', 'restart'] as Case[]) {
        const s = await timeStart(variant.dir, dataDir);
        console.log(`round ${round + 1} ${variant.name} ${which}: ${s.wall.toFixed(2)} s, CPU ${s.cpu.toFixed(2)} s (load ${loadavg()[0]!.toFixed(2)})`);
        seconds.set(`${variant.name}|${which}`, [...(seconds.get(`${variant.name}|${which}`) ?? []), s]);
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
}
const loadAfter = loadavg()[0]!;

const stats = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return `${sorted[0]!.toFixed(2)} / ${sorted[Math.floor(sorted.length / 2)]!.toFixed(2)} / ${sorted.at(-1)!.toFixed(2)}`;
};
const rows = [...seconds].map(([key, xs]) => {
  const [name, which] = key.split('|');
  return `| ${name} | ${which} | ${stats(xs.map((x) => x.wall))} | ${stats(xs.map((x) => x.cpu))} |`;
});
const section = `## Start: \`npm start\` until /healthz answers

- Command: \`BENCH_START_ANCHOR=<earlier checkout> npx tsx bench/start.bench.ts\` (${ROUNDS} rounds, interleaved); each run is \`npm start\` (npm, the prestart build, node dist/src/main.js) with a temp DATA_DIR (embedded PGlite, in-process queue, local files), PORT 0, timed from the spawn to the first 200 of GET /healthz (polled every 25 ms once the service logged its address); CPU = user + system of npm, sh, node and the children they reaped (the prestart build) until that answer, from /proc
- Machine load (1-minute load average, 2 cores shared with other work): ${loadBefore.toFixed(2)} at the start, ${loadAfter.toFixed(2)} at the end
- ${new Date().toISOString().slice(0, 10)}, Node ${process.version}

| build | data folder | wall seconds min / median / max | CPU seconds (user + system) min / median / max |
| --- | --- | --- | --- |
${rows.join('\n')}
`;
console.log(section);
writeResultsSection('start', section);
