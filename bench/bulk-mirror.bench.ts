// Bulk mirror: how long a job takes to check N URLs (fetch, decode, hash, look up the image
// objects, record, pay), and the CPU it costs per URL, one URL at a time against the defaults
// (MIRROR_CONCURRENCY URLs at once, MIRROR_HOST_CONCURRENCY per host). The URLs are spread over
// BENCH_HOSTS local image hosts (a host is a host:port), each answering after BENCH_LATENCY_MS (a
// far site's round trip); half of them serve exact or resized copies of known images, half unknown ones.
// Run: npx tsx bench/bulk-mirror.bench.ts
// Knobs: BENCH_URLS (200), BENCH_HOSTS (4), BENCH_LATENCY_MS (40), BENCH_WRITE=0.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus } from 'node:os';
import { startTestApp, LOCAL_FETCH, type TestApp } from '../test/helpers/app.js';
import { scene } from '../test/helpers/images.js';
import { makeKnown, nearCopy } from '../test/mirrors/fixtures.js';
import { loadConfig } from '../src/config.js';
import { positiveIntEnv } from './env.js';
import { writeResultsSection } from './results.js';

const URLS = positiveIntEnv('BENCH_URLS', 200);
const HOSTS = positiveIntEnv('BENCH_HOSTS', 4);
const LATENCY_MS = positiveIntEnv('BENCH_LATENCY_MS', 40);
const defaults = loadConfig({}).mirrors;

const files = new Map<string, Buffer>();
const servers: Server[] = [];
const bases: string[] = [];
for (let i = 0; i < HOSTS; i++) {
  const server = createServer((req, res) => {
    const body = files.get(req.url ?? '');
    setTimeout(() => (body ? res.writeHead(200, { 'Content-Type': 'image/jpeg' }).end(body) : res.writeHead(404).end()), LATENCY_MS);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  bases.push(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
}

async function run(concurrency: number, hostConcurrency: number, seedBase: number) {
  const t: TestApp = await startTestApp({ fetch: LOCAL_FETCH, jobs: { concurrency: 1, leaseMs: 60_000, pollMs: 20 }, mirrors: { maxUrls: 10_000, concurrency, hostConcurrency } });
  try {
    const urls: string[] = [];
    for (let i = 0; i < URLS; i++) {
      const picture = await scene(seedBase + i);
      const known = i % 2 === 0;
      if (known) await makeKnown(t, picture);
      const path = `/r${seedBase}/${i}.jpg`;
      files.set(path, known && i % 4 === 0 ? await nearCopy(picture) : picture);
      urls.push(bases[i % HOSTS] + path);
    }
    const cpuBefore = process.cpuUsage();
    const started = Date.now();
    const res = await t.request('POST', '/api/platform/bulk-mirror', { key: t.ownerKey, body: { urls } });
    let done;
    for (;;) {
      done = await t.request('GET', `/api/platform/bulk-mirror/${res.body.job_id}`, { key: t.ownerKey });
      if (done.body.status !== 'pending') break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const ms = Date.now() - started;
    const cpu = process.cpuUsage(cpuBefore);
    if (done.body.status !== 'completed' || done.body.matched !== Math.ceil(URLS / 2)) throw new Error(`bench job went wrong: ${done.text.slice(0, 500)}`);
    return { concurrency, hostConcurrency, ms, cpuMsPerUrl: (cpu.user + cpu.system) / 1000 / URLS, matched: done.body.matched as number, coins: done.body.coins_earned as number };
  } finally {
    await t.stop();
  }
}

const rows = [await run(1, 1, 1_000_000), await run(defaults.concurrency, defaults.hostConcurrency, 2_000_000)];
await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));

const lines = [
  '## Bulk mirror: URLs checked per second',
  '',
  `- Date: ${new Date().toISOString()}`,
  `- Machine: ${cpus()[0]?.model ?? 'unknown'} × ${cpus().length}, Node ${process.version}`,
  '- Command: `npx tsx bench/bulk-mirror.bench.ts`',
  `- Load: one bulk mirror job of ${URLS} URLs (800×600 JPEG scenes) spread over ${HOSTS} local hosts, each answer delayed ${LATENCY_MS} ms (a far site); half of them known image objects (a quarter exact copies, a quarter resized to 60% and recompressed), half unknown; in-memory PGlite, one process (service and hosts)`,
  '- CPU per URL: user + system time of the whole process while the job ran, divided by the URLs (fetch, decode and hashes, the object lookup, recording, the payments)',
  '',
  '| URLs at once | per host | job time (s) | URLs/s | CPU ms per URL | matched | coins paid |',
  '| ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ...rows.map((r) => `| ${r.concurrency} | ${r.hostConcurrency} | ${(r.ms / 1000).toFixed(2)} | ${((URLS * 1000) / r.ms).toFixed(1)} | ${r.cpuMsPerUrl.toFixed(1)} | ${r.matched} | ${r.coins} |`),
];
console.log(lines.join('\n'));
writeResultsSection('bulk-mirror', lines.join('\n'));
