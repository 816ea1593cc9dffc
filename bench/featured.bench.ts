// Featured-image extractor benchmark: speed in milliseconds per 100 KB of HTML, and accuracy on the
// fixture set (test/fixtures/featured). Run with `npx tsx bench/featured.bench.ts`
// (BENCH_ROUNDS, default 40, sets how many times every page is measured). Prints a markdown section
// and writes it into bench/RESULTS.md between the featured markers.
//
// The timed pages are the fixture articles padded to 100 KB with what real article pages are made
// of: paragraphs with links and inline markup, headings, figures with srcset, a related-posts list
// with thumbnails, and an analytics script. Padding goes inside the article (or main, or body), so
// the parser and every rule see a page of realistic shape and size.
import { readFileSync, readdirSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { Parser } from 'htmlparser2';
import { fileURLToPath } from 'node:url';
import { extractFeaturedCandidates } from '../src/modules/featured/featured.extractor.js';
import { writeResultsSection } from './results.js';
import { positiveIntEnv } from './env.js';

const PAGE_BYTES = 100 * 1024;
const ROUNDS = positiveIntEnv('BENCH_ROUNDS', 40);
const WARMUP_ROUNDS = 5;
const TARGET_MS = 5;

const FIXTURES_DIR = fileURLToPath(new URL('../test/fixtures/featured/', import.meta.url));

interface Fixture {
  name: string;
  html: string;
  expected: { pageUrl: string; url: string | null; source: string | null; score: number | null };
}

function loadFixtures(): Fixture[] {
  return readdirSync(FIXTURES_DIR)
    .filter((file) => file.endsWith('.html'))
    .sort()
    .map((file) => {
      const name = file.slice(0, -'.html'.length);
      return {
        name,
        html: readFileSync(`${FIXTURES_DIR}${file}`, 'utf8'),
        expected: JSON.parse(readFileSync(`${FIXTURES_DIR}${name}.expected.json`, 'utf8')) as Fixture['expected'],
      };
    });
}

// ---------------------------------------------------------------------------------------------
// Padding: deterministic, so runs compare

const SENTENCES = [
  'The council published the figures on Tuesday, two weeks later than promised.',
  'Most of the work happened in the evenings, after the day jobs were done.',
  'Nobody expected the second winter to be as wet as the first one.',
  'The <a href="https://www.example.org/reports/2023-annual.pdf">annual report</a> has the full numbers, table by table.',
  'It took <strong>three attempts</strong> and one borrowed ladder to get the last panel in place.',
  'As one volunteer put it, <em>“you learn more from the bits that go wrong.”</em>',
  'Prices rose by 4.2 per cent over the year, slightly below the regional average.',
  'See also <a href="/2023/11/previous-part/" title="Part one">the first part of this series</a>.',
  'The route is signposted from the station, but the signs are small and easy to miss.',
  'A smaller group met again in March to review what had been learned.',
];

function paddingBlock(i: number): string {
  const paragraph = (n: number) => `<p>${Array.from({ length: 4 }, (_, k) => SENTENCES[(n + k * 3) % SENTENCES.length]).join(' ')}</p>\n`;
  const parts = [paragraph(i), paragraph(i + 1)];
  if (i % 3 === 0) parts.push(`<h2 id="section-${i}">Part ${i + 2}: what came next</h2>\n`);
  if (i % 4 === 1) {
    const base = `https://www.example.org/wp-content/uploads/2024/05/photo-${1000 + i}`;
    parts.push(
      `<figure class="wp-block-image size-large"><img loading="lazy" decoding="async" width="1024" height="683" src="${base}-1024x683.jpg" alt="Photo ${i}" class="wp-image-${1000 + i}" srcset="${base}-1024x683.jpg 1024w, ${base}-300x200.jpg 300w, ${base}-768x512.jpg 768w, ${base}.jpg 1600w" sizes="(max-width: 1024px) 100vw, 1024px"><figcaption>Caption for photo ${i}, taken in the spring.</figcaption></figure>\n`,
    );
  }
  if (i % 9 === 5) {
    const items = Array.from({ length: 4 }, (_, k) => {
      const slug = `related-story-${i}-${k}`;
      return `<li class="related-post"><a href="/2024/04/${slug}/"><img src="https://www.example.org/wp-content/uploads/2024/04/${slug}-150x150.jpg" width="150" height="150" alt="" loading="lazy"><span>Related story ${i}.${k}</span></a></li>`;
    });
    parts.push(`<aside class="related"><h3>Read next</h3><ul>${items.join('')}</ul></aside>\n`);
  }
  if (i % 15 === 7) {
    parts.push(
      `<script>window.dataLayer=window.dataLayer||[];dataLayer.push({"event":"scroll_depth","depth":${i},"page":{"section":"news","tags":["local","transport"],"thumb":"https:\\/\\/www.example.org\\/img\\/share-${i}.jpg"}});</script>\n`,
    );
  }
  return parts.join('');
}

/** The fixture with padding inside its article (or main, or body) up to 100 KB. */
function padTo100KB(html: string): string {
  const lower = html.toLowerCase();
  const at = ['</article>', '</main>', '</body>'].map((tag) => lower.lastIndexOf(tag)).find((index) => index >= 0) ?? html.length;
  const blocks: string[] = [];
  let size = Buffer.byteLength(html);
  for (let i = 0; size < PAGE_BYTES; i++) {
    const block = paddingBlock(i);
    blocks.push(block);
    size += Buffer.byteLength(block);
  }
  return html.slice(0, at) + blocks.join('') + html.slice(at);
}

// ---------------------------------------------------------------------------------------------

interface Summary {
  mean: number;
  p50: number;
  p95: number;
  max: number;
}

function summary(samples: number[]): Summary {
  const sorted = [...samples].sort((a, b) => a - b);
  return { mean: samples.reduce((sum, value) => sum + value, 0) / samples.length, p50: percentile(sorted, 50), p95: percentile(sorted, 95), max: sorted[sorted.length - 1]! };
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

function accuracy(fixtures: Fixture[]): { matched: number; misses: string[] } {
  const misses: string[] = [];
  for (const fixture of fixtures) {
    const best = extractFeaturedCandidates(fixture.html, fixture.expected.pageUrl)[0];
    const ok = (best?.url ?? null) === fixture.expected.url && (best?.source ?? null) === fixture.expected.source && (best?.score ?? null) === fixture.expected.score;
    if (!ok) misses.push(`${fixture.name} (got ${best ? `${best.source} ${best.score} ${best.url}` : 'nothing'})`);
  }
  return { matched: fixtures.length - misses.length, misses };
}

function writeResults(section: string): void {
  writeResultsSection('featured', section);
}

function main(): void {
  const fixtures = loadFixtures();
  const pages = fixtures.map((fixture) => ({ name: fixture.name, pageUrl: fixture.expected.pageUrl, html: padTo100KB(fixture.html) }));
  const bytes = pages.map((page) => Buffer.byteLength(page.html));

  let sink = 0; // keeps the results alive so nothing is optimised away
  // The parser alone, with the options the extractor uses and no handlers: the floor the rules add to.
  let parsed = 0;
  const parseOnly = (html: string) => {
    new Parser({ onopentag: () => void parsed++ }, { decodeEntities: true }).end(html);
    return parsed;
  };

  // Two phases, each warmed up on its own, so neither series pays for the other's garbage (an
  // interleaved parse of the same page used to leave its garbage to be collected during the
  // extractor's samples).
  const measure = (fn: (html: string, pageUrl: string) => number, onSample: (ms: number, cpuMs: number, page: number) => void) => {
    for (let round = 0; round < WARMUP_ROUNDS; round++) for (const page of pages) sink += fn(page.html, page.pageUrl);
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i, page] of pages.entries()) {
        const cpu0 = process.cpuUsage();
        const t0 = performance.now();
        sink += fn(page.html, page.pageUrl);
        const ms = ((performance.now() - t0) * PAGE_BYTES) / bytes[i]!;
        const cpu = process.cpuUsage(cpu0);
        onSample(ms, (((cpu.user + cpu.system) / 1000) * PAGE_BYTES) / bytes[i]!, i);
      }
    }
  };

  const loadBefore = loadavg()[0]!;
  const extract: number[] = [];
  const extractCpu: number[] = [];
  const parse: number[] = [];
  const byPage = pages.map(() => [] as number[]);
  const started = performance.now();
  measure(
    (html, pageUrl) => extractFeaturedCandidates(html, pageUrl).length,
    (ms, cpuMs, i) => {
      extract.push(ms);
      extractCpu.push(cpuMs);
      byPage[i]!.push(ms);
    },
  );
  const wall = performance.now() - started;
  measure(parseOnly, (ms) => parse.push(ms));
  const loadAfter = loadavg()[0]!;
  const medians = byPage.map((samples, i) => ({ name: pages[i]!.name, median: percentile([...samples].sort((a, b) => a - b), 50) })).sort((a, b) => b.median - a.median);
  const full = summary(extract);
  const parser = summary(parse);
  const row = (s: Summary) => `${s.mean.toFixed(2)} | ${s.p50.toFixed(2)} | ${s.p95.toFixed(2)} | ${s.max.toFixed(2)}`;
  const { matched, misses } = accuracy(fixtures);

  const cpu = cpus();
  const verdict = (ok: boolean) => (ok ? '**PASS**' : '**FAIL**');
  const section = `## Featured-image extractor: speed per 100 KB and fixture accuracy

- Date: ${new Date().toISOString()}
- Machine: ${cpu[0]?.model ?? 'unknown CPU'} × ${cpu.length}, Node ${process.version}, ${process.platform} ${process.arch}
- Command: \`npx tsx bench/featured.bench.ts\`${ROUNDS === 40 ? '' : ` (BENCH_ROUNDS=${ROUNDS})`}
- Pages: the ${pages.length} fixtures of \`test/fixtures/featured\`, each padded inside its article to ${Math.round(PAGE_BYTES / 1024)} KB (${Math.min(...bytes)} to ${Math.max(...bytes)} bytes) with paragraphs, headings, figures with srcset, related-post thumbnails and analytics scripts
- Timing: \`extractFeaturedCandidates(html, pageUrl)\` on one thread (one streaming htmlparser2 parse, every source, ranking), ${WARMUP_ROUNDS} warm-up rounds, then ${ROUNDS} rounds over all pages = ${extract.length} samples (${(wall / 1000).toFixed(1)} s), each scaled to exactly 100 KB; then, in a phase of its own (own warm-up), the same pages through htmlparser2's \`Parser\` alone (same options, no handlers) to show the parser's share
- Machine load (1-minute load average, ${cpu.length} cores shared with other work): ${loadBefore.toFixed(2)} at the start, ${loadAfter.toFixed(2)} at the end. The wall-clock tail (p95, max) moves with that load (the process waits for a core) and with garbage-collection pauses; the median and the CPU time barely do

| ms per 100 KB | mean | p50 | p95 | max |
| --- | ---: | ---: | ---: | ---: |
| extractFeaturedCandidates, wall clock | ${row(full)} |
| extractFeaturedCandidates, CPU time of the process (user + system, GC threads included) | ${row(summary(extractCpu))} |
| htmlparser2 Parser alone (parser floor), wall clock | ${row(parser)} |

| target: under ${TARGET_MS} ms per 100 KB page | ms | result |
| --- | ---: | --- |
| mean | ${full.mean.toFixed(2)} | ${verdict(full.mean < TARGET_MS)} |
| p95 | ${full.p95.toFixed(2)} | ${verdict(full.p95 < TARGET_MS)} |

Slowest pages by median (ms per 100 KB): ${medians
    .slice(0, 3)
    .map((page) => `${page.name} ${page.median.toFixed(2)}`)
    .join(', ')}; fastest: ${medians[medians.length - 1]!.name} ${medians[medians.length - 1]!.median.toFixed(2)}.

| accuracy on the fixtures (url, source and score of the best candidate as expected) | value |
| --- | ---: |
| fixtures matched | ${matched} / ${fixtures.length} (${((matched / fixtures.length) * 100).toFixed(1)}%) |
${misses.length > 0 ? `\nMisses: ${misses.join('; ')}\n` : ''}`;
  console.log(section);
  if (sink < 0) console.log(sink);
  writeResults(section);
}

main();
