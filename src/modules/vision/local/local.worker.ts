// Runs in a piscina worker thread (never on the main thread): decodes an image with sharp, reads its
// text with tesseract.js and finds objects with human's centernet detector. Each thread loads its
// models once, on first use, and keeps them until the pool retires the thread when idle.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { readFile } from 'node:fs/promises';
import { pathToFileURL, fileURLToPath } from 'node:url';
import { loadSharp } from '../../../platform/sharp.js';
import Tesseract from 'tesseract.js';
import type { Detection, LocalRaw, OcrLine } from './local-result.js';
import type { VisionTask } from '../vision.types.js';

export interface LocalTask {
  image: Uint8Array;
  task: VisionTask;
  maxPixels: number;
}

export type LocalAnswer = { ok: true; raw: LocalRaw } | { ok: false; kind: 'decode'; message: string };

/** Long side the image is reduced to before OCR and detection. */
const MAX_SIDE = 1024;
/** Images smaller than this (long side) are enlarged for OCR: tesseract reads small glyphs badly. */
const OCR_MIN_SIDE = 640;

const require = createRequire(import.meta.url);

// ---- OCR: one tesseract.js worker per thread, created on first use and reused.
let ocrWorker: Promise<Tesseract.Worker> | undefined;

function ocr(): Promise<Tesseract.Worker> {
  ocrWorker ??= (async () => {
    const langPath = join(dirname(require.resolve('@tesseract.js-data/eng')), '4.0.0_best_int');
    const worker = await Tesseract.createWorker('eng', Tesseract.OEM.LSTM_ONLY, { langPath, gzip: true, cacheMethod: 'none' });
    // 70 dpi is what tesseract assumes for images without a usable resolution; saying so keeps it quiet.
    await worker.setParameters({ user_defined_dpi: '70' });
    return worker;
  })().catch((error: unknown) => {
    ocrWorker = undefined;
    throw error;
  });
  return ocrWorker;
}

async function readText(png: Buffer): Promise<OcrLine[]> {
  const worker = await ocr();
  const { data } = await worker.recognize(png, {}, { text: false, blocks: true });
  const lines: OcrLine[] = [];
  for (const block of data.blocks ?? []) {
    for (const paragraph of block.paragraphs) {
      for (const line of paragraph.lines) lines.push({ confidence: line.confidence, words: line.words.map((w) => ({ text: w.text, confidence: w.confidence })) });
    }
  }
  return lines;
}

// ---- Objects: human (tfjs on its wasm backend), loaded from the package's files by path.
interface Tensor {
  dispose(): void;
}
interface HumanTf {
  tensor4d(values: Int32Array, shape: [number, number, number, number], dtype: 'int32'): Tensor;
  io: { registerLoadRouter(router: (url: string | string[]) => unknown): void; getModelArtifactsForJSON(json: unknown, load: (manifest: WeightGroup[]) => Promise<[unknown[], ArrayBuffer]>): Promise<unknown> };
}
interface WeightGroup {
  paths: string[];
  weights: unknown[];
}
interface HumanInstance {
  tf: HumanTf;
  load(): Promise<void>;
  detect(input: Tensor): Promise<{ object: Array<{ label: string; score: number }>; error?: string | null }>;
}

let human: Promise<HumanInstance> | undefined;

function detector(): Promise<HumanInstance> {
  human ??= (async () => {
    // The package's exports map has no valid entry for this build: find it next to the main one.
    const humanFile = join(dirname(require.resolve('@vladmandic/human')), 'human.node-wasm.js');
    const { Human } = require(humanFile) as { Human: new (config: unknown) => HumanInstance };
    const wasmDir = dirname(require.resolve('@tensorflow/tfjs-backend-wasm'));
    const modelDir = join(dirname(humanFile), '..', 'models');
    const instance = new Human({
      backend: 'wasm',
      wasmPath: `${pathToFileURL(wasmDir).href}/`,
      modelBasePath: `${pathToFileURL(modelDir).href}/`,
      debug: false,
      // Still images: no frame cache, no skipping of "unchanged" frames.
      cacheSensitivity: 0,
      filter: { enabled: false },
      face: { enabled: false },
      body: { enabled: false },
      hand: { enabled: false },
      gesture: { enabled: false },
      segmentation: { enabled: false },
      object: { enabled: true, modelPath: 'centernet.json', minConfidence: 0.2, maxDetected: 20, skipFrames: 0, skipTime: 0 },
    });
    registerFileLoader(instance.tf);
    await instance.load();
    return instance;
  })().catch((error: unknown) => {
    human = undefined;
    throw error;
  });
  return human;
}

let routerRegistered = false;
/** tfjs has no file:// loader without tfjs-node: this one reads model.json and its weight files. */
function registerFileLoader(tf: HumanTf): void {
  if (routerRegistered) return;
  routerRegistered = true;
  tf.io.registerLoadRouter((url) => {
    const first = Array.isArray(url) ? url[0] : url;
    if (typeof first !== 'string' || !first.startsWith('file://')) return null;
    const file = fileURLToPath(first);
    return {
      load: async () => {
        const json = JSON.parse(await readFile(file, 'utf8')) as unknown;
        return tf.io.getModelArtifactsForJSON(json, async (manifest) => {
          const specs: unknown[] = [];
          const parts: Buffer[] = [];
          for (const group of manifest) {
            specs.push(...group.weights);
            for (const path of group.paths) parts.push(await readFile(join(dirname(file), path)));
          }
          const all = Buffer.concat(parts);
          return [specs, all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength) as ArrayBuffer];
        });
      },
    };
  });
}

async function findObjects(rgb: Buffer, width: number, height: number): Promise<Detection[]> {
  const instance = await detector();
  const tensor = instance.tf.tensor4d(new Int32Array(rgb), [1, height, width, 3], 'int32');
  try {
    const result = await instance.detect(tensor);
    if (result.error) throw new Error(`object detector: ${result.error}`);
    return result.object.map((o) => ({ label: o.label, score: o.score }));
  } finally {
    tensor.dispose();
  }
}

// ---- The task.
async function decode(image: Uint8Array, maxPixels: number) {
  const sharp = await loadSharp();
  // Orientation applied, alpha flattened onto white, at most MAX_SIDE on the long side.
  return sharp(image, { limitInputPixels: maxPixels, failOn: 'error' })
    .rotate()
    .resize(MAX_SIDE, MAX_SIDE, { fit: 'inside', withoutEnlargement: true })
    .flatten({ background: '#ffffff' })
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
}

async function ocrImage(rgb: Buffer, width: number, height: number): Promise<Buffer> {
  const sharp = await loadSharp();
  const long = Math.max(width, height);
  let pipeline = sharp(rgb, { raw: { width, height, channels: 3 } }).greyscale();
  if (long < OCR_MIN_SIDE) pipeline = pipeline.resize({ width: Math.round((width * OCR_MIN_SIDE) / long), kernel: 'lanczos3' });
  return pipeline.png({ compressionLevel: 1 }).toBuffer();
}

export default async function analyze({ image, task, maxPixels }: LocalTask): Promise<LocalAnswer> {
  const started = performance.now();
  let decoded: Awaited<ReturnType<typeof decode>>;
  try {
    decoded = await decode(image, maxPixels);
  } catch (error) {
    return { ok: false, kind: 'decode', message: (error as Error).message };
  }
  const { data: rgb, info } = decoded;
  const timings: LocalRaw['timings'] = { decodeMs: Math.round(performance.now() - started) };
  // Describe reads the text too, so that the caption can say what is written.
  const labels = task !== 'ocr'
    ? (async () => {
        const t0 = performance.now();
        const detections = await findObjects(rgb, info.width, info.height);
        timings.labelsMs = Math.round(performance.now() - t0);
        return detections;
      })()
    : Promise.resolve(undefined);
  // Tesseract works in a thread of its own: reading text and detecting objects overlap.
  const text = (async () => {
    const t0 = performance.now();
    const lines = await readText(await ocrImage(rgb, info.width, info.height));
    timings.ocrMs = Math.round(performance.now() - t0);
    return lines;
  })();
  const [detections, ocrLines] = await Promise.all([labels, text]);
  return { ok: true, raw: { ocrLines, detections, timings } };
}
