// GET or POST /api/watermark against a local fixture server: placement at every position (pixels
// sampled under and away from the overlay), opacity, defaults, formats, validation naming which
// input is wrong and why, the SSRF guard on redirects, and the signed public URL of the result.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { LOCAL_FETCH, startTestApp, type TestApp } from '../helpers/app.js';

const BLUE = [0, 0, 255];
const RED = [255, 0, 0];
// 400 x 300 image, 100 x 100 overlay: the overlay is scaled to 25% of 400 = 100 px; the corner
// margin is 2% of 300 = 6 px.
const REGIONS: Record<string, [number, number]> = {
  center: [200, 150],
  'top-left': [56, 56],
  'top-right': [344, 56],
  'bottom-left': [56, 244],
  'bottom-right': [344, 244],
};

let t: TestApp;
let key: string;
let accountId: number;
let fixture: Server;
let base = '';

async function solid(format: 'png' | 'jpeg' | 'webp' | 'gif', width: number, height: number, colour: string): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: colour } })[format]().toBuffer();
}

async function startFixture(): Promise<void> {
  const files: Record<string, { type: string; body: Buffer }> = {
    '/base.png': { type: 'image/png', body: await solid('png', 400, 300, '#0000ff') },
    '/base.jpg': { type: 'image/jpeg', body: await solid('jpeg', 400, 300, '#0000ff') },
    '/base.webp': { type: 'image/webp', body: await solid('webp', 400, 300, '#0000ff') },
    '/base.gif': { type: 'image/gif', body: await solid('gif', 400, 300, '#0000ff') },
    '/overlay.png': { type: 'image/png', body: await solid('png', 100, 100, '#ff0000') },
    '/wide-overlay.png': { type: 'image/png', body: await solid('png', 1000, 100, '#ff0000') },
    // Too many pixels for WATERMARK_MAX_PIXELS (set to 1,000,000 below), small in bytes.
    '/many-pixels.png': { type: 'image/png', body: await solid('png', 1200, 1000, '#00ff00') },
    '/page.html': { type: 'text/html; charset=utf-8', body: Buffer.from('<!doctype html><title>not an image</title>') },
    '/logo.svg': { type: 'image/svg+xml', body: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>') },
    // Larger than WATERMARK_MAX_BYTES (256 KiB below).
    '/huge.png': { type: 'image/png', body: Buffer.alloc(400 * 1024, 7) },
  };
  fixture = createServer((req, res) => {
    const path = req.url ?? '/';
    if (path === '/to-metadata') {
      res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
      return;
    }
    const file = files[path];
    if (!file) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': file.type, 'content-length': String(file.body.length) }).end(file.body);
  });
  await new Promise<void>((resolve) => fixture.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(fixture.address() as AddressInfo).port}`;
}

const post = (body: Record<string, unknown>) => t.request('POST', '/api/watermark', { key, body });
const get = (query: Record<string, string>) => t.request('GET', `/api/watermark?${new URLSearchParams(query)}`, { key });

async function download(url: string, headers: Record<string, string> = {}) {
  const response = await fetch(url, { headers });
  return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
}

async function pixels(url: string) {
  const { bytes } = await download(url);
  const { data, info } = await sharp(bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return {
    info,
    at: (x: number, y: number) => Array.from(data.subarray((y * info.width + x) * 3, (y * info.width + x) * 3 + 3)),
  };
}

function near(actual: number[], expected: number[], tolerance = 3): boolean {
  return actual.every((v, i) => Math.abs(v - expected[i]!) <= tolerance);
}

beforeAll(async () => {
  await startFixture();
  t = await startTestApp({
    fetch: LOCAL_FETCH,
    watermark: { maxBytes: 256 * 1024, maxPixels: 1_000_000 },
  });
  const account = await t.createAccount('marker');
  key = account.key;
  accountId = account.id;
}, 60_000);

afterAll(async () => {
  await t?.stop();
  await new Promise((resolve) => fixture?.close(resolve));
});

describe('POST /api/watermark', () => {
  it('defaults to center and opacity 30, and answers a signed URL that serves the result', async () => {
    const res = await post({ image: `${base}/base.png`, watermark: `${base}/overlay.png` });
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.body).slice(0, 4)).toEqual(['success', 'url', 'position', 'opacity']);
    expect(res.body).toMatchObject({ success: true, position: 'center', opacity: 30, width: 400, height: 300, format: 'png' });
    expect(res.body.url).toMatch(new RegExp(`^${t.url}/watermarks/${accountId}/[0-9a-f]{64}\\.png\\?sig=[A-Za-z0-9_-]{43}$`));

    const image = await pixels(res.body.url);
    expect([image.info.width, image.info.height]).toEqual([400, 300]);
    // 30% red over blue under the overlay, plain blue elsewhere.
    expect(near(image.at(200, 150), [77, 0, 179])).toBe(true);
    expect(image.at(20, 20)).toEqual(BLUE);
  });

  it.each(Object.keys(REGIONS))('puts the overlay at %s and nowhere else', async (position) => {
    const res = await post({ image: `${base}/base.png`, watermark: `${base}/overlay.png`, position, opacity: 100 });
    expect(res.body).toMatchObject({ position, opacity: 100 });
    const image = await pixels(res.body.url);
    for (const [region, [x, y]] of Object.entries(REGIONS)) {
      expect(image.at(x, y), `${region} at (${x}, ${y})`).toEqual(region === position ? RED : BLUE);
    }
  });

  it('keeps a margin at the corners and fills exactly the scaled overlay', async () => {
    const image = await pixels((await post({ image: `${base}/base.png`, watermark: `${base}/overlay.png`, position: 'bottom-right', opacity: 100 })).body.url);
    // Overlay at x 294..393, y 194..293.
    expect(image.at(294, 194)).toEqual(RED);
    expect(image.at(393, 293)).toEqual(RED);
    expect(image.at(293, 194)).toEqual(BLUE);
    expect(image.at(394, 293)).toEqual(BLUE);
    expect(image.at(393, 294)).toEqual(BLUE);
  });

  it('scales a wide overlay to 25% of the image width, keeping its aspect', async () => {
    const image = await pixels((await post({ image: `${base}/base.png`, watermark: `${base}/wide-overlay.png`, opacity: 100 })).body.url);
    // 1000 x 100 → 100 x 10, centred: x 150..249, y 145..154.
    expect(image.at(150, 145)).toEqual(RED);
    expect(image.at(249, 154)).toEqual(RED);
    expect(image.at(200, 143)).toEqual(BLUE);
    expect(image.at(200, 156)).toEqual(BLUE);
    expect(image.at(148, 150)).toEqual(BLUE);
  });

  it('leaves the image unchanged at opacity 0 and covers it fully at 100', async () => {
    const clear = await pixels((await post({ image: `${base}/base.png`, watermark: `${base}/overlay.png`, opacity: 0 })).body.url);
    for (const [x, y] of Object.values(REGIONS)) expect(clear.at(x, y)).toEqual(BLUE);
    const full = await pixels((await post({ image: `${base}/base.png`, watermark: `${base}/overlay.png`, opacity: 100 })).body.url);
    expect(full.at(200, 150)).toEqual(RED);
    const half = await pixels((await post({ image: `${base}/base.png`, watermark: `${base}/overlay.png`, opacity: 50 })).body.url);
    expect(near(half.at(200, 150), [128, 0, 127])).toBe(true);
  });

  it.each([
    ['base.jpg', 'jpeg', 'image/jpeg'],
    ['base.webp', 'webp', 'image/webp'],
    ['base.gif', 'png', 'image/png'],
  ])('answers %s in %s', async (file, format, type) => {
    const res = await post({ image: `${base}/${file}`, watermark: `${base}/overlay.png`, opacity: 100 });
    expect(res.body.format).toBe(format);
    const served = await download(res.body.url);
    expect(served.headers.get('content-type')).toBe(type);
    expect((await sharp(served.bytes).metadata()).format).toBe(format);
    const image = await pixels(res.body.url);
    expect(near(image.at(200, 150), RED, 12)).toBe(true);
    expect(near(image.at(20, 20), BLUE, 12)).toBe(true);
  });

  it('stores the result under the account and serves it with ETag, immutable caching and 304', async () => {
    const res = await post({ image: `${base}/base.png`, watermark: `${base}/overlay.png`, position: 'top-left', opacity: 70 });
    const file = new URL(res.body.url).pathname.split('/').pop()!;
    const stored = await t.app.services.blobs.head(`watermarks/${accountId}/${file}`);
    expect(stored).toMatchObject({ contentType: 'image/png', size: res.body.bytes });
    const first = await download(res.body.url);
    expect(first.status).toBe(200);
    expect(first.headers.get('etag')).toBe(`"${stored!.etag}"`);
    expect(first.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const again = await download(res.body.url, { 'If-None-Match': first.headers.get('etag')! });
    expect(again.status).toBe(304);
    // Byte ranges as every file route (src/http/send-blob.ts).
    expect(first.headers.get('accept-ranges')).toBe('bytes');
    const part = await download(res.body.url, { Range: 'bytes=8-', 'If-Range': first.headers.get('etag')! });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 8-${res.body.bytes - 1}/${res.body.bytes}`);
    expect(part.bytes.equals(first.bytes.subarray(8))).toBe(true);
    expect((await download(res.body.url, { Range: `bytes=${res.body.bytes}-` })).status).toBe(416);
  });

  it('answers 403 for a tampered or unsigned result URL', async () => {
    const { url } = (await post({ image: `${base}/base.png`, watermark: `${base}/overlay.png` })).body as { url: string };
    const path = url.slice(t.url.length);
    const other = path.replace(`/watermarks/${accountId}/`, `/watermarks/${accountId + 1}/`);
    // The signature's first character changed to another one, whatever it was.
    const tampered = path.replace(/sig=(.)/, (_match, first: string) => `sig=${first === 'A' ? 'B' : 'A'}`);
    for (const target of [path.split('?')[0]!, other, tampered, `${path}&extra=1`]) {
      const res = await t.request('GET', target);
      expect(res.status, target).toBe(403);
      expect(res.body.success).toBe(false);
    }
  });
});

describe('GET /api/watermark', () => {
  it('takes the same parameters in the query', async () => {
    const res = await get({ image: `${base}/base.png`, watermark: `${base}/overlay.png`, position: 'top-right', opacity: '100' });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ success: true, position: 'top-right', opacity: 100 });
    const image = await pixels(res.body.url);
    expect(image.at(...REGIONS['top-right']!)).toEqual(RED);
    expect(image.at(...REGIONS['top-left']!)).toEqual(BLUE);
  });

  it('is a GraphQL mutation too', async () => {
    const res = await t.graphql(
      `mutation($i: String!, $w: String!) { watermark(image: $i, watermark: $w, position: "bottom-left") { __typename
        ... on MutationWatermarkSuccess { data { url position opacity } } ... on ServiceError { message field } } }`,
      { i: `${base}/base.png`, w: `${base}/overlay.png` },
      { key },
    );
    expect(res.body.data.watermark).toMatchObject({ __typename: 'MutationWatermarkSuccess', data: { position: 'bottom-left', opacity: 30 } });
  });
});

describe('refusals', () => {
  const image = () => `${base}/base.png`;
  const overlay = () => `${base}/overlay.png`;
  it.each<[string, () => Record<string, unknown>, RegExp]>([
    ['no image', () => ({ watermark: overlay() }), /^image is required/],
    ['no watermark', () => ({ image: image() }), /^watermark is required/],
    ['an image that is not a URL', () => ({ image: 'not a url', watermark: overlay() }), /^image: not a valid URL/],
    ['an ftp URL', () => ({ image: 'ftp://127.0.0.1/x.png', watermark: overlay() }), /^image: only http and https/],
    ['an unknown position', () => ({ image: image(), watermark: overlay(), position: 'middle' }), /^position: expected one of center, top-left/],
    ['opacity above 100', () => ({ image: image(), watermark: overlay(), opacity: 101 }), /^opacity: expected an integer from 0 to 100/],
    ['negative opacity', () => ({ image: image(), watermark: overlay(), opacity: -1 }), /^opacity/],
    ['fractional opacity', () => ({ image: image(), watermark: overlay(), opacity: 2.5 }), /^opacity: expected an integer/],
    ['an image answering 404', () => ({ image: `${base}/missing.png`, watermark: overlay() }), /^image: the URL answered HTTP 404/],
    ['a watermark answering 404', () => ({ image: image(), watermark: `${base}/missing.png` }), /^watermark: the URL answered HTTP 404/],
    ['an HTML page as the watermark', () => ({ image: image(), watermark: `${base}/page.html` }), /^watermark: not an image \(the URL answered text\/html/],
    ['an SVG image', () => ({ image: `${base}/logo.svg`, watermark: overlay() }), /^image: SVG is not accepted/],
    ['an image over the byte limit', () => ({ image: `${base}/huge.png`, watermark: overlay() }), /^image: refused to fetch .*larger than the limit of 262144 bytes/],
    ['a watermark over the pixel limit', () => ({ image: image(), watermark: `${base}/many-pixels.png` }), /^watermark: the image is 1200x1000 pixels, over the limit of 1,000,000/],
    ['a watermark redirecting to the metadata address', () => ({ image: image(), watermark: `${base}/to-metadata` }), /^watermark: refused to fetch http:\/\/169\.254\.169\.254\/.*metadata/],
    ['a private address not on the allow-list', () => ({ image: 'http://10.0.0.1/x.png', watermark: overlay() }), /^image: refused to fetch http:\/\/10\.0\.0\.1\//],
  ])('answers 400 for %s', async (_name, body, message) => {
    const res = await post(body());
    expect(res.status, res.text).toBe(400);
    expect(res.body).toEqual({ success: false, error: expect.stringMatching(message) });
  });

  it('holds GraphQL callers to the same rules and messages as REST ones (one schema)', async () => {
    const query = `mutation($i: String!, $w: String!, $p: String, $o: Int) { watermark(image: $i, watermark: $w, position: $p, opacity: $o) { __typename
      ... on ServiceError { status message field } } }`;
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ image: '', watermark: overlay() }, 'image', 'image is required: the URL of the image to watermark'],
      [{ image: 'ftp://127.0.0.1/x.png', watermark: overlay() }, 'image', 'image: only http and https URLs can be fetched'],
      [{ image: image(), watermark: 'not a url' }, 'watermark', 'watermark: not a valid URL'],
      [{ image: image(), watermark: overlay(), position: 'middle' }, 'position', 'position: expected one of center, top-left, top-right, bottom-left, bottom-right, got "middle"'],
      [{ image: image(), watermark: overlay(), opacity: 101 }, 'opacity', 'opacity: expected an integer from 0 to 100'],
    ];
    for (const [body, field, message] of cases) {
      const rest = await post(body);
      expect([rest.status, rest.body.error], JSON.stringify(body)).toEqual([400, message]);
      const { image: i, watermark: w, position: p, opacity: o } = body;
      const graphql = await t.graphql(query, { i, w, p, o }, { key });
      expect(graphql.body.data.watermark, JSON.stringify(body)).toEqual({ __typename: 'ServiceError', status: 400, message, field });
    }
  });

  it('answers 400 for a bad opacity in the query', async () => {
    const res = await get({ image: image(), watermark: overlay(), opacity: 'half' });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/^opacity/);
  });

  it('reports the image first when both inputs are wrong', async () => {
    const res = await post({ image: `${base}/missing.png`, watermark: `${base}/page.html` });
    expect(res.body.error).toMatch(/^image:/);
  });
});
