// A small image host on 127.0.0.1 for the mirror tests: exact copies of known photos, resized and
// recompressed ones, unrelated photos, a non-image, an oversized body, a picture with too many
// pixels, a redirect to an address the service may not fetch, and slow paths that record how
// many requests were in flight at once.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { scene } from '../helpers/images.js';
import type { TestApp } from '../helpers/app.js';
import { fingerprintOf, processSharedImage } from '../../src/modules/images/index.js';

export interface ImageHost {
  url: string;
  /** Bytes served by path (tests add their own). */
  files: Map<string, Buffer>;
  /** Requests answered, by path. */
  hits: Map<string, number>;
  /** Most requests under /slow/ in flight at once. */
  maxInFlight(): number;
  close(): Promise<void>;
}

export const SLOW_MS = 150;

export async function startImageHost(): Promise<ImageHost> {
  const files = new Map<string, Buffer>();
  const hits = new Map<string, number>();
  let inFlight = 0;
  let most = 0;
  let port = 0;
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    if (path === '/to-private.jpg') return res.writeHead(302, { Location: `http://127.0.0.2:${port}/photo-a.jpg` }).end();
    if (path === '/huge.jpg') return res.writeHead(200, { 'Content-Type': 'image/jpeg' }).end(Buffer.alloc(3 * 1024 * 1024, 0xff));
    if (path === '/note.txt') return res.writeHead(200, { 'Content-Type': 'text/plain' }).end('not a picture at all\n');
    const body = files.get(path);
    if (!body) return res.writeHead(404).end();
    if (!path.startsWith('/slow/')) return res.writeHead(200, { 'Content-Type': 'image/jpeg' }).end(body);
    inFlight++;
    most = Math.max(most, inFlight);
    setTimeout(() => {
      inFlight--;
      res.writeHead(200, { 'Content-Type': 'image/jpeg' }).end(body);
    }, SLOW_MS);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    files,
    hits,
    maxInFlight: () => most,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A resized (60%), recompressed copy of a JPEG: the same photo to the service. */
export async function nearCopy(body: Buffer): Promise<Buffer> {
  const { width } = await sharp(body).metadata();
  return sharp(body).resize(Math.round(width * 0.6)).jpeg({ quality: 40 }).toBuffer();
}

/** A PNG with more pixels than the test app's UPLOAD_MAX_PIXELS (small in bytes). */
export async function tooManyPixels(): Promise<Buffer> {
  return sharp({ create: { width: 2600, height: 2000, channels: 3, background: '#808080' } }).png().toBuffer();
}

/** Makes the image a known image object, as a community contribution or wiki photo would. */
export async function makeKnown(t: TestApp, body: Buffer): Promise<number> {
  const image = await processSharedImage(body, { maxBytes: t.config.uploadMaxBytes, maxPixels: t.config.uploadMaxPixels });
  return (await t.app.services.imageObjects.identify(fingerprintOf(image))).object.id;
}

export { scene };
