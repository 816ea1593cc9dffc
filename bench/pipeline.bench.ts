// Pipelines: what running a step through POST /api/pipeline costs over calling its single route, and
// what a long chain of references costs. Three loads, each BENCH_RUNS times one after the other:
// POST /api/generate (count 1) against the fake providers; the same generation as a one-step
// pipeline (which also stores the image in the media library); and a 10-step pipeline of filter
// steps, each on the previous step's images (100 items carrying sizes), which is the pipeline's own
// machinery alone: checks, references, quota units, answers.
// Run: npx tsx bench/pipeline.bench.ts
// Knobs: BENCH_RUNS (40), BENCH_WRITE=0.
import { cpus } from 'node:os';
import { startTestApp } from '../test/helpers/app.js';
import { fakeGenerationConfig, startFakeGenerationProviders } from '../test/fixtures/generation/fake-providers.js';
import { positiveIntEnv } from './env.js';
import { writeResultsSection } from './results.js';

const RUNS = positiveIntEnv('BENCH_RUNS', 40);
const gen = await startFakeGenerationProviders();
const t = await startTestApp({ generation: fakeGenerationConfig(gen, { GENERATE_BREAKER_FAILURES: '1000' }), tiers: { standard: { daily: 1_000_000, perMinute: 1_000_000 } } });
await t.request('POST', '/api/admin/accounts/owner/credits', { admin: true, body: { amount: 10 * RUNS } });

const items = Array.from({ length: 100 }, (_, i) => ({ url: `https://example.com/${i}.jpg`, width: 100 + i * 10, height: 600, title: `photo ${i}` }));
const chain = [
  { name: 's0', action: 'filter', params: { images: items, min_width: 100 } },
  ...Array.from({ length: 9 }, (_, i) => ({ name: `s${i + 1}`, action: 'filter', params: { images: `$s${i}.images`, min_width: 100 + i * 50 } })),
];

async function timed(name: string, call: () => Promise<{ status: number; text: string }>) {
  const ms: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    const res = await call();
    ms.push(performance.now() - started);
    if (res.status !== 200 || res.text.includes('"status":"failed"')) throw new Error(`${name}: ${res.status} ${res.text.slice(0, 300)}`);
  }
  ms.sort((a, b) => a - b);
  const at = (q: number) => ms[Math.min(ms.length - 1, Math.floor(q * ms.length))]!;
  return { name, p50: at(0.5), p95: at(0.95) };
}

const rows = [
  await timed('POST /api/generate, count 1', () => t.request('POST', '/api/generate', { key: t.ownerKey, body: { prompt: 'a lighthouse', count: 1 } })),
  await timed('POST /api/pipeline: one generate step (count 1, stored in the library)', () =>
    t.request('POST', '/api/pipeline', { key: t.ownerKey, body: { steps: [{ name: 'g', action: 'generate', params: { prompt: 'a lighthouse', count: 1 } }] } }),
  ),
  await timed('POST /api/pipeline: 10 filter steps chained by references, 100 items', () => t.request('POST', '/api/pipeline', { key: t.ownerKey, body: { steps: chain } })),
];
await t.stop();
await gen.close();

const lines = [
  '## Pipeline: a step against its single route',
  '',
  `- Date: ${new Date().toISOString()}`,
  `- Machine: ${cpus()[0]?.model ?? 'unknown'} × ${cpus().length}, Node ${process.version}`,
  '- Command: `npx tsx bench/pipeline.bench.ts`',
  `- Load: ${RUNS} requests of each kind one after the other, over HTTP to the service on 127.0.0.1 (in-memory PGlite, one process with the fake generation providers); latency of the whole request`,
  '',
  '| request | p50 (ms) | p95 (ms) |',
  '| --- | ---: | ---: |',
  ...rows.map((r) => `| ${r.name} | ${r.p50.toFixed(1)} | ${r.p95.toFixed(1)} |`),
];
console.log(lines.join('\n'));
writeResultsSection('pipeline', lines.join('\n'));
