// Generation fallback overhead: what the provider chain (breaker, deadline, fallback loop, PNG check)
// costs over calling a provider's client directly, against the same local fake provider (the fake
// OpenAI-compatible images API of test/fixtures/generation). Target: under 5 ms at the median.
// Run: npx tsx bench/generation-fallback.bench.ts
// Knobs: BENCH_ROUNDS (300), BENCH_WARMUP_ROUNDS (30), BENCH_WRITE=0.
//
// Variants, interleaved round by round so machine noise falls on all alike (one image each):
// - direct client: OpenAiImagesProvider.generate() alone;
// - direct client + PNG: the same, then the PNG conversion the chain also does (sharp);
// - chain, healthy first provider: ProviderChain.generate() with openai first;
// - chain, first provider fails: a provider answering HTTP 500 first (its circuit kept closed), then openai;
// - chain, first circuit open: that failing provider passed over without a call.
import { cpus } from 'node:os';
import sharp from 'sharp';
import { createLogger } from '../src/platform/logger.js';
import { SafeFetcher } from '../src/platform/http/safe-fetch.js';
import { chainEntries, downloaderOf, OpenAiImagesProvider, ProviderChain } from '../src/modules/generation/index.js';
import { fakeGenerationConfig, startFakeGenerationProviders } from '../test/fixtures/generation/fake-providers.js';
import { positiveIntEnv } from './env.js';
import { writeResultsSection } from './results.js';

const ROUNDS = Math.min(positiveIntEnv('BENCH_ROUNDS', 300), 900); // below the failing provider's breaker threshold (1000 with the warm-up)
const WARMUP = positiveIntEnv('BENCH_WARMUP_ROUNDS', 30);
const TARGET_MS = 5;

const fake = await startFakeGenerationProviders();
const fetcher = new SafeFetcher({ allowPrivateAddresses: ['127.0.0.1'] });
const logger = createLogger('silent');
const request = { prompt: 'a lighthouse at dawn. Style: professional photograph', orientation: 'landscape' as const, count: 1 };

function chain(env: Record<string, string>): ProviderChain {
  const config = fakeGenerationConfig(fake, { GENERATE_OPENAI_TIMEOUT_MS: '10000', GENERATE_POLLINATIONS_TIMEOUT_MS: '10000', ...env });
  return new ProviderChain(chainEntries(config, downloaderOf(fetcher)), { breaker: config.breaker, maxPixels: config.maxPixels }, logger);
}

const config = fakeGenerationConfig(fake);
const client = new OpenAiImagesProvider({ ...config.openai!, maxImageBytes: config.maxImageBytes }, downloaderOf(fetcher));
const healthy = chain({ GENERATE_PROVIDER_ORDER: 'openai' });
// Pollinations answers HTTP 500 in this run; a threshold above the rounds keeps its circuit closed, so every call pays the failed try.
const failingFirst = chain({ GENERATE_PROVIDER_ORDER: 'pollinations,openai', GENERATE_BREAKER_FAILURES: '1000' });
const openFirst = chain({ GENERATE_PROVIDER_ORDER: 'pollinations,openai', GENERATE_BREAKER_FAILURES: '1', GENERATE_BREAKER_COOLDOWN_MS: '3600000' });
fake.behaviour.pollinations = 'status500';

const variants: Array<{ name: string; run: () => Promise<unknown> }> = [
  { name: 'direct client', run: () => client.generate({ ...request, signal: new AbortController().signal }) },
  {
    name: 'direct client + PNG',
    run: async () => {
      const [bytes] = await client.generate({ ...request, signal: new AbortController().signal });
      return sharp(bytes!).rotate().png().toBuffer();
    },
  },
  { name: 'chain, healthy first provider', run: () => healthy.generate(request) },
  { name: 'chain, first provider fails (HTTP 500)', run: () => failingFirst.generate(request) },
  { name: 'chain, first circuit open', run: () => openFirst.generate(request) },
];

const samples = new Map<string, number[]>(variants.map((v) => [v.name, []]));
for (let round = 0; round < WARMUP + ROUNDS; round++) {
  for (const variant of variants) {
    const started = performance.now();
    await variant.run();
    const elapsed = performance.now() - started;
    if (round >= WARMUP) samples.get(variant.name)!.push(elapsed);
  }
}
if (openFirst.states()[0]!.state !== 'open') throw new Error('the open-circuit variant should have opened its first provider');

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
};
const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
const stats = new Map([...samples].map(([name, values]) => [name, { p50: quantile(values, 0.5), p95: quantile(values, 0.95), mean: mean(values) }]));
const f = (n: number) => n.toFixed(2);
const base = stats.get('direct client + PNG')!;
const rows = [...stats].map(([name, s]) => `| ${name} | ${f(s.p50)} | ${f(s.p95)} | ${f(s.mean)} | ${name.startsWith('chain') ? f(s.p50 - base.p50) : ''} |`);
const overhead = stats.get('chain, healthy first provider')!.p50 - base.p50;
const overRaw = stats.get('chain, healthy first provider')!.p50 - stats.get('direct client')!.p50;
const fallback = stats.get('chain, first provider fails (HTTP 500)')!.p50 - base.p50;
const skipped = stats.get('chain, first circuit open')!.p50 - base.p50;

const section = `## Generation: fallback overhead over a direct provider call

- Date: ${new Date().toISOString()}
- Machine: ${cpus()[0]?.model.trim()} × ${cpus().length}, Node ${process.version}, ${process.platform} ${process.arch}
- Command: \`npx tsx bench/generation-fallback.bench.ts\`
- Provider: the fake OpenAI-compatible images API of \`test/fixtures/generation\` on 127.0.0.1 (a fresh 64x48 PNG per image, as b64_json); one image per call
- Rounds: ${WARMUP} warm-up, then ${ROUNDS}; in each round every variant once, in turn

| variant | p50 (ms) | p95 (ms) | mean (ms) | p50 over direct + PNG (ms) |
| --- | ---: | ---: | ---: | ---: |
${rows.join('\n')}

| measure | value | target | result |
| --- | ---: | --- | --- |
| chain over direct client + PNG, healthy first provider (p50) | ${f(overhead)} ms | < ${TARGET_MS} ms | **${overhead < TARGET_MS ? 'PASS' : 'FAIL'}** |
| chain over the direct client alone (PNG conversion included), healthy first provider (p50) | ${f(overRaw)} ms | < ${TARGET_MS} ms | **${overRaw < TARGET_MS ? 'PASS' : 'FAIL'}** |
| chain over direct client + PNG, first provider failing fast (p50) | ${f(fallback)} ms | (informative: one failed round trip) | |
| chain over direct client + PNG, first circuit open (p50) | ${f(skipped)} ms | (informative: the open circuit is not called) | |

The chain's own work is the breaker, the per-attempt deadline (AbortSignal.timeout and a race), the
loop and the PNG conversion; the conversion is in "direct client + PNG" too, so the difference is the
fallback machinery. A failing first provider costs its failed request, which a real provider's
latency dominates; an open circuit costs nothing measurable.
`;

console.log(section);
writeResultsSection('generation-fallback', section);
await fetcher.close();
await fake.close();
