// Upload image-processing benchmark: `processUpload` (sniffing, SHA-256, header check, one bounded
// decode, WebP thumbnail, pHash, blockhash, Lab dominant colour) against plain sharp doing the same
// decode, resize and hash work written as directly as possible (metadata, one decode to a raw
// raster, WebP thumbnail from it, the same sharp-phash and blockhash-core calls, sharp stats() for
// the colour). Both run in one process over the same ~2-megapixel JPEGs, interleaved image by
// image. Run with `npx tsx bench/upload.bench.ts` (BENCH_ROUNDS, default 4, sets the measured
// passes over the images). Prints a markdown section and writes it into bench/RESULTS.md.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp, { type SharpOptions } from 'sharp';
import { bmvbhash } from 'blockhash-core';
import { fileTypeFromBuffer } from 'file-type';
import { processUpload, type ProcessLimits } from '../src/modules/images/index.js';
import { writeResultsSection } from './results.js';
import { positiveIntEnv } from './env.js';

const phash = createRequire(import.meta.url)('sharp-phash') as (image: Buffer, options?: SharpOptions) => Promise<string>;

const IMAGES = 30;
const ROUNDS = positiveIntEnv('BENCH_ROUNDS', 4);
const WARMUP_IMAGES = 6;
const TARGET_RATIO = 1.3;
const LIMITS: ProcessLimits = { maxBytes: 25 * 1024 * 1024, maxPixels: 50_000_000, thumbnailSize: 320 };
const SIZES: Array<[number, number]> = [
  [1920, 1080],
  [1632, 1224],
];

// Generated once, then reused (bump the version when photoLike changes).
const CACHE_DIR = join(tmpdir(), 'image-service-upload-bench-v2');
const RESULTS_FILE = fileURLToPath(new URL('./RESULTS.md', import.meta.url));
const SUMMARY_PREFIX = 'Summary: ';

// ---------------------------------------------------------------------------------------------
// Photo-like test images: a two-colour gradient at a random angle, a low-frequency texture, soft
// shapes (SVG overlay, partly blurred), then per-pixel grain, encoded as JPEG q88 4:2:0.

function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function photoLike(index: number): Promise<Buffer> {
  const random = prng(1000 + index);
  const [width, height] = SIZES[index % SIZES.length]!;
  const colour = () => [random() * 255, random() * 255, random() * 255];
  const from = colour();
  const to = colour();
  const angle = random() * Math.PI * 2;
  const [dx, dy] = [Math.cos(angle), Math.sin(angle)];
  const span = Math.abs(dx) * width + Math.abs(dy) * height;
  // Texture: a sum of plane waves amp * sin(kx x + ky y + phase), split with the angle-addition
  // formula into per-column and per-row tables.
  const waves = Array.from({ length: 4 }, () => {
    const kx = (2 * Math.PI * (random() * 12 + 1)) / width;
    const ky = (2 * Math.PI * (random() * 12 + 1)) / height;
    const phase = random() * 6.3;
    const amp = random() * 18 + 6;
    return {
      sinX: Float64Array.from({ length: width }, (_, x) => amp * Math.sin(kx * x + phase)),
      cosX: Float64Array.from({ length: width }, (_, x) => amp * Math.cos(kx * x + phase)),
      sinY: Float64Array.from({ length: height }, (_, y) => Math.sin(ky * y)),
      cosY: Float64Array.from({ length: height }, (_, y) => Math.cos(ky * y)),
    };
  });
  const base = new Uint8ClampedArray(width * height * 3); // clamps (and rounds) what is assigned
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const t = Math.min(1, Math.max(0, ((x - width / 2) * dx + (y - height / 2) * dy) / span + 0.5));
      let texture = 0;
      for (const w of waves) texture += w.sinX[x]! * w.cosY[y]! + w.cosX[x]! * w.sinY[y]!;
      const i = (y * width + x) * 3;
      for (let c = 0; c < 3; c++) base[i + c] = from[c]! + (to[c]! - from[c]!) * t + texture;
    }
  }
  const shapes: string[] = [];
  for (let s = 0; s < 14; s++) {
    const [r, g, b] = colour().map((v) => Math.round(v));
    const fill = `rgb(${r},${g},${b})`;
    const opacity = (0.35 + random() * 0.6).toFixed(2);
    const filter = random() < 0.5 ? ' filter="url(#soft)"' : '';
    const cx = Math.round(random() * width);
    const cy = Math.round(random() * height);
    const size = Math.round((0.04 + random() * 0.22) * Math.min(width, height));
    shapes.push(
      random() < 0.6
        ? `<ellipse cx="${cx}" cy="${cy}" rx="${size}" ry="${Math.round(size * (0.5 + random()))}" fill="${fill}" fill-opacity="${opacity}"${filter}/>`
        : `<rect x="${cx}" y="${cy}" width="${size * 2}" height="${size}" transform="rotate(${Math.round(random() * 90)} ${cx} ${cy})" fill="${fill}" fill-opacity="${opacity}"${filter}/>`,
    );
  }
  const overlay = Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><defs><filter id="soft"><feGaussianBlur stdDeviation="6"/></filter></defs>${shapes.join('')}</svg>`,
  );
  const composedBuffer = await sharp(Buffer.from(base.buffer), { raw: { width, height, channels: 3 } })
    .composite([{ input: overlay }])
    .removeAlpha()
    .raw()
    .toBuffer();
  // Grain: mostly luminance, a little chroma; uniform sums are close enough to Gaussian here.
  const grain = 10 + (index % 5) * 1.5;
  const composed = new Uint8ClampedArray(composedBuffer.buffer, composedBuffer.byteOffset, composedBuffer.length);
  for (let i = 0; i < composed.length; i += 3) {
    const shared = (random() + random() - 1) * grain;
    for (let c = 0; c < 3; c++) composed[i + c] = composed[i + c]! + shared + (random() - 0.5) * grain * 0.5;
  }
  return sharp(composedBuffer, { raw: { width, height, channels: 3 } }).jpeg({ quality: 88 }).toBuffer();
}

// ---------------------------------------------------------------------------------------------
// The hand-written baseline: the same decode, resize and hash work in plain sharp.

interface BaselineResult {
  thumbnail: Buffer;
  phash: string;
  blockhash: string;
  dominant: { r: number; g: number; b: number } | null;
}

/** `withColour: false` drops stats(): the bare decode + thumbnail + hashes, as an informative floor. */
async function baseline(body: Buffer, withColour = true): Promise<BaselineResult> {
  const input = { limitInputPixels: LIMITS.maxPixels };
  const meta = await sharp(body, input).metadata();
  if (meta.width * meta.height > LIMITS.maxPixels) throw new Error('too many pixels');
  const { data, info } = await sharp(body, input)
    .rotate()
    .resize({ width: 320, height: 320, fit: 'inside', withoutEnlargement: true })
    .raw()
    .toBuffer({ resolveWithObject: true });
  const raw = { ...input, raw: { width: info.width, height: info.height, channels: info.channels } };
  const [thumbnail, bits, hashRaster, stats] = await Promise.all([
    sharp(data, raw).webp({ quality: 80 }).toBuffer(),
    phash(data, raw),
    sharp(data, raw).resize(256, 256, { fit: 'fill' }).ensureAlpha().raw().toBuffer(),
    withColour ? sharp(data, raw).stats() : null,
  ]);
  let hex = '';
  for (let i = 0; i < bits.length; i += 4) hex += Number.parseInt(bits.slice(i, i + 4), 2).toString(16);
  return { thumbnail, phash: hex, blockhash: bmvbhash({ width: 256, height: 256, data: hashRaster }, 16), dominant: stats?.dominant ?? null };
}

// ---------------------------------------------------------------------------------------------

interface Stats {
  mean: number;
  p50: number;
  p95: number;
}

function stats(samples: number[]): Stats {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
  return { mean: sorted.reduce((s, v) => s + v, 0) / sorted.length, p50: at(0.5), p95: at(0.95) };
}

async function timed(step: () => Promise<unknown>): Promise<number> {
  const started = process.hrtime.bigint();
  await step();
  return Number(process.hrtime.bigint() - started) / 1e6;
}

const ms = (v: number) => v.toFixed(1);

function commandLine(): string {
  const env = ['BENCH_ROUNDS'].filter((n) => process.env[n]).map((n) => `${n}=${process.env[n]}`);
  return [...env, 'npx tsx bench/upload.bench.ts'].join(' ');
}

function previousSummary(): string | null {
  if (!existsSync(RESULTS_FILE)) return null;
  const text = readFileSync(RESULTS_FILE, 'utf8');
  const start = text.indexOf('<!-- upload:start -->');
  const end = text.indexOf('<!-- upload:end -->');
  if (start < 0 || end < start) return null;
  const line = text
    .slice(start, end)
    .split('\n')
    .find((l) => l.startsWith(SUMMARY_PREFIX));
  return line ? line.slice(SUMMARY_PREFIX.length) : null;
}

function writeResults(section: string): void {
  writeResultsSection('upload', section);
}

async function main(): Promise<void> {
  // libvips' operation cache would serve repeated passes over the same bytes from memory.
  sharp.cache(false);
  const generationStarted = process.hrtime.bigint();
  mkdirSync(CACHE_DIR, { recursive: true });
  const images: Buffer[] = [];
  for (let i = 0; i < IMAGES; i++) {
    const file = join(CACHE_DIR, `photo-${i}.jpg`);
    if (!existsSync(file)) writeFileSync(file, await photoLike(i));
    images.push(readFileSync(file));
  }
  const generationMs = Number(process.hrtime.bigint() - generationStarted) / 1e6;
  const sizes = images.map((b) => b.length / 1024);
  console.log(`${IMAGES} JPEGs ready in ${(generationMs / 1000).toFixed(1)} s (cached in ${CACHE_DIR}), ${Math.min(...sizes).toFixed(0)}-${Math.max(...sizes).toFixed(0)} KB`);

  // Same answers: the hashes must agree bit for bit (same raster, same hash code).
  let sameHashes = 0;
  for (const body of images) {
    const [ours, theirs] = await Promise.all([processUpload(body, LIMITS), baseline(body)]);
    if (ours.phash === theirs.phash && ours.blockhash === theirs.blockhash) sameHashes++;
  }
  console.log(`hashes identical on ${sameHashes}/${IMAGES} images`);

  const variants: Array<{ name: string; run: (body: Buffer) => Promise<unknown>; samples: number[] }> = [
    { name: 'processUpload', run: (body) => processUpload(body, LIMITS), samples: [] },
    { name: 'baseline', run: (body) => baseline(body), samples: [] },
    { name: 'baseline without colour', run: (body) => baseline(body, false), samples: [] },
  ];
  for (let i = 0; i < WARMUP_IMAGES; i++) for (const v of variants) await v.run(images[i]!);
  for (let round = 0; round < ROUNDS; round++) {
    for (let i = 0; i < images.length; i++) {
      // Rotate which variant goes first, so none always runs right after another's allocations.
      for (let k = 0; k < variants.length; k++) {
        const variant = variants[(i + round + k) % variants.length]!;
        variant.samples.push(await timed(() => variant.run(images[i]!)));
      }
    }
    console.log(`round ${round + 1}/${ROUNDS}: ${variants.map((v) => `${v.name} ${ms(stats(v.samples.slice(-IMAGES)).mean)} ms`).join(', ')} per image`);
  }
  const [oursMs, baseMs, bareMs] = variants.map((v) => v.samples) as [number[], number[], number[]];
  // What processUpload does that the baseline does not: magic-number sniffing and SHA-256 of the bytes.
  const sniffMs: number[] = [];
  const shaMs: number[] = [];
  for (const body of images) {
    sniffMs.push(await timed(() => fileTypeFromBuffer(body)));
    shaMs.push(await timed(async () => createHash('sha256').update(body).digest('hex')));
  }

  const ours = stats(oursMs);
  const base = stats(baseMs);
  const bare = stats(bareMs);
  const ratio = ours.mean / base.mean;
  const pass = ratio <= TARGET_RATIO;
  const cpu = cpus();
  const date = new Date().toISOString();
  const summary = `${date}: processUpload ${ms(ours.mean)} ms/image, baseline ${ms(base.mean)} ms/image, ratio ${ratio.toFixed(2)}x (${pass ? 'PASS' : 'FAIL'}); without colour ${ms(bare.mean)} ms/image, ratio ${(ours.mean / bare.mean).toFixed(2)}x`;
  const previous = previousSummary();
  const lines = [
    '## Upload image processing: processUpload vs plain sharp',
    '',
    `- Date: ${date}`,
    `- Machine: ${cpu[0]?.model.trim() ?? 'unknown CPU'} × ${cpu.length}, Node ${process.version}, ${process.platform} ${process.arch}, sharp ${sharp.versions.sharp} / libvips ${sharp.versions.vips}`,
    `- Command: \`${commandLine()}\``,
    `- Images: ${IMAGES} generated photo-like JPEGs (gradient, texture, soft shapes, grain; q88 4:2:0), 1920x1080 and 1632x1224, ${Math.min(...sizes).toFixed(0)}-${Math.max(...sizes).toFixed(0)} KB (mean ${(sizes.reduce((s, v) => s + v, 0) / sizes.length).toFixed(0)} KB), EXIF orientation 1`,
    `- Timing: one image at a time, the variants interleaved image by image (order rotating), ${WARMUP_IMAGES} warm-up images each, then ${ROUNDS} passes over all images = ${oursMs.length} samples per variant; libvips operation cache off; limits ${LIMITS.maxPixels!.toLocaleString('en-US')} px, thumbnail ${LIMITS.thumbnailSize} px`,
    `- Baseline: \`metadata()\`; one \`rotate().resize(320 inside).raw()\` decode; from that raster a WebP q80 thumbnail, \`sharp-phash\`, a 256x256 RGBA resize for \`blockhash-core\` (16x16 = 256 bits) and \`stats()\` (dominant colour); no sniffing, no SHA-256, no Lab clustering`,
    `- Same answers: pHash and blockhash identical to the baseline's on ${sameHashes}/${IMAGES} images`,
    '',
    '| variant | mean ms/image | p50 ms | p95 ms | images/s |',
    '| --- | ---: | ---: | ---: | ---: |',
    `| processUpload | ${ms(ours.mean)} | ${ms(ours.p50)} | ${ms(ours.p95)} | ${(1000 / ours.mean).toFixed(1)} |`,
    `| plain sharp baseline | ${ms(base.mean)} | ${ms(base.p50)} | ${ms(base.p95)} | ${(1000 / base.mean).toFixed(1)} |`,
    `| plain sharp baseline without \`stats()\` (informative floor: no colour at all) | ${ms(bare.mean)} | ${ms(bare.p50)} | ${ms(bare.p95)} | ${(1000 / bare.mean).toFixed(1)} |`,
    '',
    '| ratio | value | target | result |',
    '| --- | ---: | --- | --- |',
    `| processUpload / baseline (mean time per image) | ${ratio.toFixed(2)}x | ≤ ${TARGET_RATIO}x | **${pass ? 'PASS' : 'FAIL'}** |`,
    `| processUpload / baseline without colour | ${(ours.mean / bare.mean).toFixed(2)}x | (informative) | |`,
    '',
    `Extra work inside processUpload, measured alone on the same files: file-type sniffing ${stats(sniffMs).mean.toFixed(2)} ms, SHA-256 ${stats(shaMs).mean.toFixed(2)} ms per image (mean).`,
    '',
    `${SUMMARY_PREFIX}${summary}`,
    ...(previous ? ['', `Previous run: ${previous}`] : []),
  ];
  const section = lines.join('\n');
  console.log(`\n${section}\n`);
  writeResults(section);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
