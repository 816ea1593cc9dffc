// Writes one benchmark's section of bench/RESULTS.md, between its own markers, leaving the other
// benchmarks' sections as they are (the file is read just before writing). BENCH_WRITE=0 leaves the
// file alone, for every benchmark: comparison and diagnostic runs only print.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const RESULTS_FILE = fileURLToPath(new URL('./RESULTS.md', import.meta.url));

const RESULTS_HEADER = `# Benchmark results

Everything below is produced by the commands shown in each section, on a shared, noisy 2-core
machine where the load generator and the service compete for the same two cores. Absolute figures
move from run to run by tens of percent; compare the ratios between variants within one run.
`;

/** Writes the section unless BENCH_WRITE=0; says which it did. */
export function writeResultsSection(name: string, section: string): void {
  if (process.env.BENCH_WRITE === '0') {
    console.log('BENCH_WRITE=0: RESULTS.md left as it was');
    return;
  }
  const startMarker = `<!-- ${name}:start -->`;
  const endMarker = `<!-- ${name}:end -->`;
  let text = existsSync(RESULTS_FILE) ? readFileSync(RESULTS_FILE, 'utf8') : RESULTS_HEADER;
  if (!text.startsWith('# Benchmark results')) text = `${RESULTS_HEADER}\n${text}`;
  const block = `${startMarker}\n${section.trim()}\n${endMarker}`;
  const start = text.indexOf(startMarker);
  const end = text.indexOf(endMarker);
  text = start >= 0 && end > start ? text.slice(0, start) + block + text.slice(end + endMarker.length) : `${text.trimEnd()}\n\n${block}\n`;
  writeFileSync(RESULTS_FILE, text.endsWith('\n') ? text : `${text}\n`);
  console.log(`${name} section written to ${RESULTS_FILE}`);
}
