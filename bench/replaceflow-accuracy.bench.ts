// ReplaceFlow accuracy: how well the 64-bit pHash match (distance <= 10) tells a clean republished
// copy of a watermarked photo from unrelated photos, and how well the watermark detector
// (src/modules/replaceflow/watermark-detector.ts) tells which copy carries the marks.
//
// The fixture set is synthesised with sharp (test/fixtures/replaceflow/photos.ts): PHOTOS scenes
// (gradient, forty overlapping shapes, a texture of stripes, Gaussian grain), each one
//   - watermarked as a news site would (text or logo; opacity 0.25 to 0.85; bottom-right, centre,
//     bottom-left, top-left, or tiled across the picture): the source lead;
//   - republished clean twice (640 to 1024 px wide, JPEG q60 to 85 or WebP q55, some 10% brighter):
//     what reverse search should find;
//   - republished with the same watermark (the lead recompressed): the same photo, not clean;
//   - every third one also as a stock preview carrying its own tiled "PREVIEW" mark.
// Unrelated photos: each lead against the clean copies of UNRELATED other scenes.
//
// pHash: positives are (lead, clean copy), (lead, marked copy) and (lead, stock preview) pairs,
// negatives (lead, unrelated) pairs; a pair is called a match at distance <= 10 (the spec's
// phash_match). Targets (issue 13): precision >= 95%, recall >= 90%.
// Detector: for each same-photo pair, is the lead flagged (firstMarked) exactly when it carries
// marks the candidate lacks, and the candidate flagged (secondMarked) exactly when it carries marks
// the lead lacks? Precision and recall of both flags, over every same-photo pair, plus (clean,
// clean) pairs, where nothing should be flagged.
//
// Run: `npm run bench:replaceflow` (REPLACEFLOW_PHOTOS, default 36; REPLACEFLOW_UNRELATED, default
// 4). Writes its section of bench/RESULTS.md (BENCH_WRITE=0 only prints).
import { performance } from 'node:perf_hooks';
import { hammingDistance, processSharedImage } from '../src/modules/images/index.js';
import { compareMarks, PHASH_MATCH_MAX_DISTANCE } from '../src/modules/replaceflow/index.js';
import { photoScene, republished, watermarked, type CleanVariant, type MarkPosition, type WatermarkOptions } from '../test/fixtures/replaceflow/photos.js';
import { positiveIntEnv } from './env.js';
import { writeResultsSection } from './results.js';
import { gitState, machine, percentile, table } from './faults/common.js';

const PHOTOS = positiveIntEnv('REPLACEFLOW_PHOTOS', 36);
const UNRELATED = positiveIntEnv('REPLACEFLOW_UNRELATED', 4);
const LIMITS = { maxBytes: 50 * 1024 * 1024, maxPixels: 40_000_000 };

const OPACITIES = [0.25, 0.4, 0.6, 0.85];
const POSITIONS: MarkPosition[] = ['bottom-right', 'center', 'bottom-left', 'tiled', 'top-left'];
const CLEAN: CleanVariant[] = [
  { width: 1024, format: 'jpeg', quality: 85 },
  { width: 800, format: 'webp', quality: 55 },
  { width: 640, format: 'jpeg', quality: 60, brightness: 1.1 },
  { width: 900, format: 'jpeg', quality: 75 },
];

interface Photo {
  index: number;
  mark: WatermarkOptions;
  lead: Buffer;
  clean: Buffer[];
  markedCopy: Buffer;
  preview: Buffer | null;
  phash: { lead: string; clean: string[]; markedCopy: string; preview: string | null };
}

interface Counts {
  tp: number;
  fp: number;
  fn: number;
  tn: number;
}

const counts = (): Counts => ({ tp: 0, fp: 0, fn: 0, tn: 0 });
function tally(c: Counts, predicted: boolean, truth: boolean): void {
  if (predicted && truth) c.tp++;
  else if (predicted) c.fp++;
  else if (truth) c.fn++;
  else c.tn++;
}
const precision = (c: Counts) => (c.tp + c.fp === 0 ? 1 : c.tp / (c.tp + c.fp));
const recall = (c: Counts) => (c.tp + c.fn === 0 ? 1 : c.tp / (c.tp + c.fn));
const pct = (value: number) => `${(value * 100).toFixed(1)}%`;

async function phashOf(image: Buffer): Promise<string> {
  return (await processSharedImage(image, LIMITS)).phash;
}

async function makePhoto(index: number): Promise<Photo> {
  const base = await photoScene(1000 + index * 17, 1200, index % 3 === 0 ? 900 : 800);
  const kind = index % 2 === 0 ? 'text' : 'logo';
  const mark: WatermarkOptions = { kind, opacity: OPACITIES[index % OPACITIES.length]!, position: POSITIONS[index % POSITIONS.length]! };
  const lead = await watermarked(base, mark);
  const clean = await Promise.all([CLEAN[index % CLEAN.length]!, CLEAN[(index + 1) % CLEAN.length]!].map((variant) => republished(base, variant)));
  const markedCopy = await republished(lead, { width: 800, format: 'jpeg', quality: 70 });
  const preview =
    index % 3 === 0 ? await republished(await watermarked(base, { kind: 'text', opacity: 0.35, position: 'tiled', text: 'PREVIEW' }), { width: 1000, format: 'jpeg', quality: 80 }) : null;
  return {
    index,
    mark,
    lead,
    clean,
    markedCopy,
    preview,
    phash: {
      lead: await phashOf(lead),
      clean: await Promise.all(clean.map(phashOf)),
      markedCopy: await phashOf(markedCopy),
      preview: preview ? await phashOf(preview) : null,
    },
  };
}

async function main(): Promise<void> {
  const started = performance.now();
  const photos: Photo[] = [];
  for (let i = 0; i < PHOTOS; i++) photos.push(await makePhoto(i));
  const madeSeconds = (performance.now() - started) / 1000;

  // pHash matching.
  const match = counts();
  const sameDistances: number[] = [];
  const unrelatedDistances: number[] = [];
  const misses: string[] = [];
  for (const photo of photos) {
    const same = [...photo.phash.clean, photo.phash.markedCopy, ...(photo.phash.preview ? [photo.phash.preview] : [])];
    for (const hash of same) {
      const distance = hammingDistance(photo.phash.lead, hash);
      sameDistances.push(distance);
      tally(match, distance <= PHASH_MATCH_MAX_DISTANCE, true);
      if (distance > PHASH_MATCH_MAX_DISTANCE) misses.push(`photo ${photo.index} (${photo.mark.kind} ${photo.mark.opacity} ${photo.mark.position}): distance ${distance}`);
    }
    for (let k = 1; k <= UNRELATED; k++) {
      const other = photos[(photo.index + k * 7) % photos.length]!;
      if (other === photo) continue;
      const distance = hammingDistance(photo.phash.lead, other.phash.clean[k % 2]!);
      unrelatedDistances.push(distance);
      tally(match, distance <= PHASH_MATCH_MAX_DISTANCE, false);
    }
  }

  // The watermark detector, on same-photo pairs.
  const leadFlag = counts();
  const candidateFlag = counts();
  const detectMs: number[] = [];
  const detectorMisses: string[] = [];
  const judge = async (label: string, first: Buffer, second: Buffer, truth: { first: boolean; second: boolean }) => {
    const t0 = performance.now();
    const result = await compareMarks(first, second, LIMITS.maxPixels);
    detectMs.push(performance.now() - t0);
    tally(leadFlag, result.firstMarked, truth.first);
    tally(candidateFlag, result.secondMarked, truth.second);
    if (result.firstMarked !== truth.first || result.secondMarked !== truth.second) {
      detectorMisses.push(`${label}: said ${result.firstMarked}/${result.secondMarked}, truth ${truth.first}/${truth.second} (marked ${result.markedArea}, first ${result.firstArea}, second ${result.secondArea})`);
    }
  };
  for (const photo of photos) {
    const what = `photo ${photo.index} (${photo.mark.kind} ${photo.mark.opacity} ${photo.mark.position})`;
    for (const [i, clean] of photo.clean.entries()) await judge(`${what} vs clean ${i}`, photo.lead, clean, { first: true, second: false });
    await judge(`${what} vs its marked copy`, photo.lead, photo.markedCopy, { first: false, second: false });
    await judge(`${what}: clean 0 vs clean 1`, photo.clean[0]!, photo.clean[1]!, { first: false, second: false });
    if (photo.preview) await judge(`${what} vs stock preview`, photo.lead, photo.preview, { first: true, second: true });
  }

  const report = {
    photos: PHOTOS,
    match: { precision: precision(match), recall: recall(match), ...match },
    leadFlag: { precision: precision(leadFlag), recall: recall(leadFlag), ...leadFlag },
    candidateFlag: { precision: precision(candidateFlag), recall: recall(candidateFlag), ...candidateFlag },
  };
  console.log(JSON.stringify(report, null, 2));
  if (misses.length) console.log('pHash misses:\n  ' + misses.join('\n  '));
  if (detectorMisses.length) console.log('detector misses:\n  ' + detectorMisses.join('\n  '));

  const distances = (values: number[]) => `min ${Math.min(...values)}, median ${percentile(values, 50)}, p95 ${percentile(values, 95)}, max ${Math.max(...values)}`;
  const section = `## ReplaceFlow: pHash match and watermark detector accuracy

Command: \`npm run bench:replaceflow\` (REPLACEFLOW_PHOTOS=${PHOTOS}, REPLACEFLOW_UNRELATED=${UNRELATED}); ${machine()}; ${gitState()}.
Fixture set (made with sharp in ${madeSeconds.toFixed(1)} s, test/fixtures/replaceflow/photos.ts): ${PHOTOS} synthetic photos
(gradient, shapes, stripe texture, grain), each watermarked (text or logo; opacity 0.25, 0.4, 0.6,
0.85; bottom-right, centre, bottom-left, tiled, top-left), republished clean twice (640 to 1024 px,
JPEG q60 to 85 or WebP q55, some 10% brighter), republished with the watermark, and every third
one as a stock preview with its own tiled mark; each lead is also compared with ${UNRELATED} unrelated photos.

pHash match (64-bit DCT pHash, match at distance <= ${PHASH_MATCH_MAX_DISTANCE}; targets: precision >= 95%, recall >= 90%):

${table(
  ['pairs', 'count', 'distance'],
  [
    ['same photo (lead vs clean, marked copy, preview)', sameDistances.length, distances(sameDistances)],
    ['unrelated photos', unrelatedDistances.length, distances(unrelatedDistances)],
  ],
  ['l', 'r', 'l'],
)}

${table(
  ['measure', 'value', 'tp', 'fp', 'fn', 'tn'],
  [['pHash match', `precision ${pct(report.match.precision)}, recall ${pct(report.match.recall)}`, match.tp, match.fp, match.fn, match.tn]],
  ['l', 'l', 'r', 'r', 'r', 'r'],
)}

Watermark detector (pixel comparison of two copies of one photo), over ${detectMs.length} same-photo pairs:
lead vs clean copy (the lead is marked), lead vs its own recompressed copy and clean vs clean
(nothing to flag), lead vs stock preview (both marked, in different places). Median ${percentile(detectMs, 50).toFixed(0)} ms,
p95 ${percentile(detectMs, 95).toFixed(0)} ms per pair.

${table(
  ['flag', 'precision', 'recall', 'tp', 'fp', 'fn', 'tn'],
  [
    ['lead carries marks the candidate lacks (source_lead is_watermarked)', pct(report.leadFlag.precision), pct(report.leadFlag.recall), leadFlag.tp, leadFlag.fp, leadFlag.fn, leadFlag.tn],
    ['candidate carries marks the lead lacks (clean_discovery is_watermarked)', pct(report.candidateFlag.precision), pct(report.candidateFlag.recall), candidateFlag.tp, candidateFlag.fp, candidateFlag.fn, candidateFlag.tn],
  ],
  ['l', 'r', 'r', 'r', 'r', 'r', 'r'],
)}
${detectorMisses.length ? `\nWhere the detector was wrong:\n\n${detectorMisses.map((m) => `- ${m}`).join('\n')}\n` : ''}${misses.length ? `\npHash misses:\n\n${misses.map((m) => `- ${m}`).join('\n')}\n` : ''}`;
  writeResultsSection('replaceflow-accuracy', section);
}

await main();
