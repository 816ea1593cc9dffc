// A steady REST load for the fault scripts: a few clients in a loop, each request with a client
// timeout (a request that outlives it counts as a hang), every answer recorded with when it was
// sent and when it ended, so a script can cut the record into windows around a fault.
import sharp from 'sharp';
import { withMarker } from '../image-markers.js';
import { request, type Answer } from './common.js';
import { sleep } from './infra.js';

export interface Sample extends Answer {
  op: string;
  endAt: number;
}

export interface Op {
  name: string;
  /** The status a healthy service answers. */
  ok: number;
  run(base: string, key: string): Promise<Answer>;
}

/** A small PNG with a unique tEXt chunk: distinct bytes per upload (the library answers repeats with the first item). */
export async function uniquePngFactory(): Promise<() => Buffer> {
  const base = await sharp({ create: { width: 48, height: 32, channels: 3, background: { r: 30, g: 120, b: 200 } } }).png().toBuffer();
  let n = 0;
  return () => withMarker('png', base, `fault load ${process.pid} ${++n} ${Date.now()}`);
}

/** list, search, upload, a job poll (404) and the health check, with the key where they take one. */
export async function restOps(timeoutMs: number): Promise<Op[]> {
  const png = await uniquePngFactory();
  return [
    { name: 'GET /api/media/list', ok: 200, run: (base, key) => request(`${base}/api/media/list?limit=20`, { headers: { 'X-API-Key': key } }, timeoutMs) },
    { name: 'GET /api/media/search', ok: 200, run: (base, key) => request(`${base}/api/media/search?q=fault&limit=20`, { headers: { 'X-API-Key': key } }, timeoutMs) },
    {
      name: 'POST /api/media/upload',
      ok: 201,
      run: (base, key) => {
        const form = new FormData();
        form.set('file', new Blob([new Uint8Array(png())], { type: 'image/png' }), 'fault.png');
        form.set('name', 'fault load');
        return request(`${base}/api/media/upload`, { method: 'POST', headers: { 'X-API-Key': key }, body: form }, timeoutMs);
      },
    },
    { name: 'GET /api/jobs/{id} (missing: 404)', ok: 404, run: (base, key) => request(`${base}/api/jobs/999999`, { headers: { 'X-API-Key': key } }, timeoutMs) },
    { name: 'GET /healthz', ok: 200, run: (base) => request(`${base}/healthz`, {}, timeoutMs) },
  ];
}

/** Runs `clients` loops over the ops (each client starting at another op) until stop(). */
export function startLoad(base: string, key: string, ops: Op[], clients: number, pauseMs = 20): { samples: Sample[]; stop(): Promise<void> } {
  const samples: Sample[] = [];
  let running = true;
  const loops = Array.from({ length: clients }, async (_v, c) => {
    for (let i = c; running; i++) {
      const op = ops[i % ops.length]!;
      const answer = await op.run(base, key);
      samples.push({ ...answer, op: op.name, endAt: Date.now() });
      await sleep(pauseMs);
    }
  });
  return {
    samples,
    stop: async () => {
      running = false;
      await Promise.all(loops);
    },
  };
}

/** The `error` of a JSON error envelope, or a short description of whatever came instead. */
export function describeAnswer(s: Answer): string {
  if (s.status === 0) return `no answer (${s.error})`;
  const body = s.body as { success?: boolean; error?: unknown } | null;
  // Request ids differ per answer: left out, so equal messages count together.
  if (body && typeof body === 'object' && body.success === false && typeof body.error === 'string') return body.error.replace(/\(request id [0-9a-f-]+\)/, '(request id …)');
  if (body && typeof body === 'object') return `JSON without an error envelope: ${s.text.slice(0, 120)}`;
  return `not JSON: ${s.text.slice(0, 120)}`;
}

/** Does the body show internals a client should never see (a stack, driver or Prisma text)? */
export function leaksInternals(s: Answer): boolean {
  return /\n\s+at |prisma|invocation|ECONNREFUSED|57P0\d|ioredis|node_modules|DriverAdapter/i.test(s.text);
}
