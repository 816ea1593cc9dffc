// HEIC/HEIF pixels for the upload pipeline. sharp's prebuilt libvips reads HEIF headers but has no
// HEVC decoder, so the pixels come from libheif compiled to WebAssembly (libheif-js, heic.worker.ts).
// The decode runs in a worker thread: a 12-megapixel photo is about a second of synchronous
// WebAssembly, which must not stall the event loop, and a thread can be stopped when a hostile file
// makes it run too long. The pool starts on the first HEIC and its thread ends after an idle
// period, taking the module and its memory (over 100 MB after a large photo) with it.
import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { Unavailable } from '../../platform/errors.js';
import type { HeicAnswer, HeicTask } from './heic.worker.js';

const WORKER_FILE = new URL('./heic-worker-entry.mjs', import.meta.url).href;
/** A 48-megapixel photo decodes in a few seconds; far longer means a hostile or broken file. */
const DECODE_TIMEOUT_MS = 30_000;
const IDLE_TIMEOUT_MS = 30_000;
/** Decodes waiting for a thread; past that an upload is answered 503 rather than held. */
const MAX_QUEUE = 64;

let pool: Piscina<HeicTask, HeicAnswer> | undefined;

function workers(): Piscina<HeicTask, HeicAnswer> {
  pool ??= new Piscina<HeicTask, HeicAnswer>({
    filename: WORKER_FILE,
    minThreads: 0,
    // Half the cores: sharp works on the other half (and libuv's pool) at the same time.
    maxThreads: Math.max(1, Math.floor(availableParallelism() / 2)),
    idleTimeout: IDLE_TIMEOUT_MS,
    maxQueue: MAX_QUEUE,
    // The threads need no TypeScript loader flags of the main thread (the entry brings tsx itself).
    execArgv: [],
  });
  return pool;
}

/**
 * Decodes the primary image of HEIC/HEIF bytes in a worker thread (a copy of the bytes moves there).
 * A decode that outlasts the timeout is stopped with its thread and answered as a failure.
 */
export async function decodeHeic(body: Buffer, maxPixels: number): Promise<HeicAnswer> {
  const bytes = new Uint8Array(body);
  try {
    return await workers().run({ body: bytes, maxPixels }, { signal: AbortSignal.timeout(DECODE_TIMEOUT_MS), transferList: [bytes.buffer] });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (/queue is at limit/i.test(message)) throw new Unavailable('HEIC decoding is busy: too many images are waiting; retry shortly');
    if (error instanceof Error && (error.name === 'AbortError' || /abort/i.test(message))) {
      return { ok: false, reason: `decoding took longer than ${DECODE_TIMEOUT_MS / 1000} s` };
    }
    throw error;
  }
}
