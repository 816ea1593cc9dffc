// Transformation URLs (POST /api/media/{id}/optimize) and the public endpoint behind them: defaults
// and validation, the bytes really served (format sniffed, dimensions read back), signatures,
// ownership, the blob-store cache (renders counted, ETag, 304, de-duplicated concurrent renders)
// and the output caps.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { startTestApp, type TestApp } from '../helpers/app.js';
import type { Actor } from '../../src/modules/accounts/actor.js';

let t: TestApp;
let alice: { key: string; actor: Actor };
let bob: { key: string; actor: Actor };
let photo: number; // 2000 x 1500 JPEG
let tall: number; // 100 x 5000 PNG
let rotated: number; // 300 x 200 JPEG with EXIF orientation 6 (shows as 200 x 300)
let transparent: number; // 64 x 64 PNG, half transparent
let pdf: number;

async function account(name: string) {
  const { key } = await t.createAccount(name);
  return { key, actor: await t.app.services.auth.authenticate(key) };
}

async function ingest(actor: Actor, body: Buffer, filename: string): Promise<number> {
  return (await t.app.services.media.ingest(actor, { body, filename })).media.id;
}

/** A noisy image (so encoders have something to do and sizes differ by quality). */
async function noisy(width: number, height: number): Promise<Buffer> {
  const raw = Buffer.alloc(width * height * 3);
  for (let i = 0; i < raw.length; i++) raw[i] = (i * 7919 + (i >> 7) * 31) & 0xff;
  return sharp(raw, { raw: { width, height, channels: 3 } }).jpeg({ quality: 90 }).toBuffer();
}

const optimize = (id: number, body: Record<string, unknown> = {}, key = alice.key) => t.request('POST', `/api/media/${id}/optimize`, { key, body });

/** GETs an absolute URL of the service; returns the raw bytes. */
async function fetchBytes(url: string, headers: Record<string, string> = {}) {
  const response = await fetch(url, { headers });
  const bytes = Buffer.from(await response.arrayBuffer());
  return { status: response.status, headers: response.headers, bytes };
}

function sniff(bytes: Buffer): string {
  if (bytes.subarray(0, 4).toString('latin1') === 'RIFF' && bytes.subarray(8, 12).toString('latin1') === 'WEBP') return 'webp';
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpg';
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'png';
  if (bytes.subarray(4, 12).toString('latin1') === 'ftypavif') return 'avif';
  return 'unknown';
}

beforeAll(async () => {
  t = await startTestApp();
  alice = await account('alice');
  bob = await account('bob');
  photo = await ingest(alice.actor, await noisy(2000, 1500), 'photo.jpg');
  tall = await ingest(alice.actor, await sharp({ create: { width: 100, height: 5000, channels: 3, background: '#336699' } }).png().toBuffer(), 'tall.png');
  rotated = await ingest(
    alice.actor,
    await sharp({ create: { width: 300, height: 200, channels: 3, background: '#aa0000' } }).jpeg().withMetadata({ orientation: 6 }).toBuffer(),
    'rotated.jpg',
  );
  transparent = await ingest(
    alice.actor,
    await sharp({ create: { width: 64, height: 64, channels: 4, background: { r: 0, g: 128, b: 0, alpha: 0.5 } } }).png().toBuffer(),
    'alpha.png',
  );
  const PDF = Buffer.from('%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Count 0/Kids[]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n');
  pdf = await ingest(alice.actor, PDF, 'doc.pdf');
}, 60_000);

afterAll(async () => {
  await t?.stop();
});

describe('POST /api/media/{id}/optimize', () => {
  it('answers defaults: width 1200, quality auto, format webp, with an absolute signed URL', async () => {
    const res = await optimize(photo);
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.body)).toEqual(['success', 'url', 'width', 'quality', 'format', 'media_id', 'output_width', 'output_height', 'effective_quality']);
    expect(res.body).toMatchObject({ success: true, width: 1200, quality: 'auto', format: 'webp', media_id: photo, output_width: 1200, output_height: 900, effective_quality: 80 });
    expect(res.body.url).toMatch(new RegExp(`^${t.url}/media/${photo}/t/1200xauto\\.webp\\?v=[0-9a-f]{16}&sig=[A-Za-z0-9_-]{43}$`));
  });

  it('takes width, quality (number or string) and format; jpeg is jpg', async () => {
    const res = await optimize(photo, { width: 640, quality: 70, format: 'jpeg' });
    expect(res.body).toMatchObject({ width: 640, quality: '70', format: 'jpg', output_width: 640, output_height: 480, effective_quality: 70 });
    expect((await optimize(photo, { quality: '55', format: 'png' })).body).toMatchObject({ quality: '55', format: 'png', effective_quality: 55 });
    expect((await optimize(photo, { format: 'png' })).body).toMatchObject({ quality: 'auto', effective_quality: null });
    expect((await optimize(photo, { format: 'avif' })).body).toMatchObject({ effective_quality: 55 });
    expect((await optimize(photo, { format: 'jpg' })).body).toMatchObject({ effective_quality: 82 });
  });

  it.each([
    [{ width: 0 }, 'width'],
    [{ width: 4097 }, 'width'],
    [{ width: -5 }, 'width'],
    [{ width: 1.5 }, 'width'],
    [{ width: 'wide' }, 'width'],
    [{ quality: 0 }, 'quality'],
    [{ quality: 101 }, 'quality'],
    [{ quality: 'best' }, 'quality'],
    [{ quality: true }, 'quality'],
    [{ format: 'gif' }, 'format'],
    [{ format: 7 }, 'format'],
  ])('refuses %j with a 400 naming %s', async (body, field) => {
    const res = await optimize(photo, body);
    expect(res.status, res.text).toBe(400);
    expect(res.body).toEqual({ success: false, error: expect.stringMatching(new RegExp(`^${field}`)) });
  });

  it("answers 404 for another account's item and for an unknown id, 409 for a document", async () => {
    const others = await optimize(photo, {}, bob.key);
    expect(others.status).toBe(404);
    expect(others.body).toEqual({ success: false, error: `no media item ${photo}` });
    expect((await optimize(999_999)).status).toBe(404);
    const doc = await optimize(pdf);
    expect(doc.status).toBe(409);
    expect(doc.body.error).toMatch(/document; only images/);
  });

  it('is a GraphQL mutation with a ServiceError member', async () => {
    const query = `mutation($id: Int!, $w: Int) { optimizeMedia(id: $id, width: $w) { __typename
      ... on MutationOptimizeMediaSuccess { data { url width outputWidth } } ... on ServiceError { status message field } } }`;
    const ok = await t.graphql(query, { id: photo, w: 300 }, { key: alice.key });
    expect(ok.body.data.optimizeMedia).toMatchObject({ __typename: 'MutationOptimizeMediaSuccess', data: { width: 300, outputWidth: 300 } });
    const denied = await t.graphql(query, { id: photo, w: 300 }, { key: bob.key });
    expect(denied.body.data.optimizeMedia).toMatchObject({ __typename: 'ServiceError', status: 404 });
    const bad = await t.graphql(query, { id: photo, w: 0 }, { key: alice.key });
    expect(bad.body.data.optimizeMedia).toMatchObject({ __typename: 'ServiceError', status: 400, field: 'width' });
  });

  it('holds GraphQL callers to the same rules and messages as REST ones (one schema)', async () => {
    const query = `mutation($id: Int!, $w: Int, $q: String, $f: String) { optimizeMedia(id: $id, width: $w, quality: $q, format: $f) { __typename
      ... on ServiceError { status message field } } }`;
    const cases: Array<[Record<string, unknown>, Record<string, unknown>, string, string]> = [
      [{ width: 0 }, { w: 0 }, 'width', 'width: expected a positive integer (pixels)'],
      [{ width: 4097 }, { w: 4097 }, 'width', 'width: expected at most 4096 (pixels: the largest output side)'],
      [{ quality: 'best' }, { q: 'best' }, 'quality', `quality: expected 'auto' or an integer from 1 to 100, got "best"`],
      [{ format: 'gif' }, { f: 'gif' }, 'format', 'format: expected one of webp, jpg, png, avif, got "gif"'],
    ];
    for (const [body, variables, field, message] of cases) {
      const rest = await optimize(photo, body);
      expect([rest.status, rest.body.error], JSON.stringify(body)).toEqual([400, message]);
      const graphql = await t.graphql(query, { id: photo, ...variables }, { key: alice.key });
      expect(graphql.body.data.optimizeMedia, JSON.stringify(variables)).toEqual({ __typename: 'ServiceError', status: 400, message, field });
    }
  });
});

describe('the transformation endpoint', () => {
  it.each([
    ['webp', 800, 600],
    ['jpg', 500, 375],
    ['png', 320, 240],
    ['avif', 400, 300],
  ])('serves %s at the asked width, metadata stripped', async (format, width, height) => {
    const { url } = (await optimize(photo, { width, format })).body;
    const res = await fetchBytes(url);
    expect(res.status).toBe(200);
    expect(sniff(res.bytes)).toBe(format);
    expect(res.headers.get('content-type')).toBe(format === 'jpg' ? 'image/jpeg' : `image/${format}`);
    const meta = await sharp(res.bytes).metadata();
    expect([meta.width, meta.height]).toEqual([width, height]);
    expect(meta.exif).toBeUndefined();
    expect(Number(res.headers.get('content-length'))).toBe(res.bytes.length);
  });

  it('lower quality gives fewer bytes', async () => {
    const low = await fetchBytes((await optimize(photo, { width: 600, quality: 20, format: 'jpg' })).body.url);
    const high = await fetchBytes((await optimize(photo, { width: 600, quality: 95, format: 'jpg' })).body.url);
    expect(low.bytes.length).toBeLessThan(high.bytes.length);
  });

  it('never upscales: a width beyond the original serves the original width', async () => {
    const res = await optimize(photo, { width: 3000, format: 'jpg' });
    expect(res.body).toMatchObject({ width: 3000, output_width: 2000, output_height: 1500 });
    const meta = await sharp((await fetchBytes(res.body.url)).bytes).metadata();
    expect([meta.width, meta.height]).toEqual([2000, 1500]);
  });

  it('caps the height too: a tall image is scaled so both sides fit TRANSFORM_MAX_DIMENSION', async () => {
    const res = await optimize(tall, { width: 100, format: 'png' });
    expect(res.body).toMatchObject({ output_width: 82, output_height: 4096 });
    const meta = await sharp((await fetchBytes(res.body.url)).bytes).metadata();
    expect([meta.width, meta.height]).toEqual([82, 4096]);
  });

  it('applies EXIF orientation', async () => {
    const res = await optimize(rotated, { width: 1000, format: 'png' });
    expect(res.body).toMatchObject({ output_width: 200, output_height: 300 });
    const meta = await sharp((await fetchBytes(res.body.url)).bytes).metadata();
    expect([meta.width, meta.height, meta.orientation ?? 1]).toEqual([200, 300, 1]);
  });

  it('keeps transparency in webp and flattens it onto white in jpg', async () => {
    const webp = await sharp((await fetchBytes((await optimize(transparent, { format: 'webp' })).body.url)).bytes).metadata();
    expect(webp.hasAlpha).toBe(true);
    const jpg = await fetchBytes((await optimize(transparent, { format: 'jpg', quality: 100 })).body.url);
    const { data } = await sharp(jpg.bytes).raw().toBuffer({ resolveWithObject: true });
    // 50% green over white: about (127, 191, 127).
    expect(data[0]).toBeGreaterThan(110);
    expect(data[1]).toBeGreaterThan(170);
  });

  it('answers 403 JSON when any parameter or the signature is changed, added or missing', async () => {
    const { url } = (await optimize(photo, { width: 400, quality: 60, format: 'jpg' })).body as { url: string };
    expect((await fetchBytes(url)).status).toBe(200);
    const [path, query] = url.slice(t.url.length).split('?') as [string, string];
    const params = new URLSearchParams(query);
    const sig = params.get('sig')!;
    const v = params.get('v')!;
    const flip = (s: string) => (s[0] === 'A' ? 'B' : 'A') + s.slice(1);
    const tampered = [
      path.replace('/400x', '/401x') + `?${query}`,
      path.replace('x60.', 'x61.') + `?${query}`,
      path.replace('x60.', 'xauto.') + `?${query}`,
      path.replace('.jpg', '.png') + `?${query}`,
      path.replace(`/media/${photo}/`, `/media/${tall}/`) + `?${query}`,
      `${path}?v=${flip(v)}&sig=${sig}`,
      `${path}?v=${v}&sig=${flip(sig)}`,
      `${path}?v=${v}`,
      `${path}?v=${v}&sig=${sig}&width=4000`,
      `${path}?v=${v}&sig=${sig}&sig=${sig}`,
      `${path}`,
    ];
    for (const target of tampered) {
      const res = await t.request('GET', target);
      expect(res.status, target).toBe(403);
      expect(res.body).toEqual({ success: false, error: expect.stringMatching(/signature/) });
    }
  });

  it('caches renders in the blob store: the second request streams the same bytes with the same ETag; 304 on If-None-Match', async () => {
    const transforms = t.app.services.transforms;
    const { url } = (await optimize(photo, { width: 777, quality: 66, format: 'webp' })).body;
    const media = await t.app.services.media.get(alice.actor, photo);
    const key = transforms.keyOf(media, { width: 777, quality: 66, format: 'webp' });
    expect(await t.app.services.blobs.head(key)).toBeNull();

    const before = transforms.renders;
    const first = await fetchBytes(url);
    expect(first.status).toBe(200);
    expect(first.headers.get('x-transform-cache')).toBe('miss');
    expect(transforms.renders).toBe(before + 1);
    const stored = await t.app.services.blobs.head(key);
    expect(stored).toMatchObject({ size: first.bytes.length, contentType: 'image/webp' });

    const second = await fetchBytes(url);
    expect(second.headers.get('x-transform-cache')).toBe('hit');
    expect(transforms.renders).toBe(before + 1);
    expect(second.bytes.equals(first.bytes)).toBe(true);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[^"]+"$/); // strong
    expect(second.headers.get('etag')).toBe(etag);
    expect(etag).toBe(`"${stored!.etag}"`);
    for (const res of [first, second]) expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');

    const revalidated = await fetchBytes(url, { 'If-None-Match': etag });
    expect(revalidated.status).toBe(304);
    expect(revalidated.bytes.length).toBe(0);
    expect(revalidated.headers.get('etag')).toBe(etag);
    expect((await fetchBytes(url, { 'If-None-Match': '"something-else"' })).status).toBe(200);
    expect(transforms.renders).toBe(before + 1);
  });

  it('renders once for concurrent first requests of one variant', async () => {
    const transforms = t.app.services.transforms;
    const { url } = (await optimize(photo, { width: 1111, format: 'jpg' })).body;
    const before = transforms.renders;
    const answers = await Promise.all(Array.from({ length: 6 }, () => fetchBytes(url)));
    expect(answers.map((a) => a.status)).toEqual(Array(6).fill(200));
    expect(new Set(answers.map((a) => a.headers.get('etag'))).size).toBe(1);
    expect(transforms.renders).toBe(before + 1);
  });

  it('shares one stored render between URLs that produce the same bytes', async () => {
    const transforms = t.app.services.transforms;
    const a = (await optimize(photo, { width: 2500, format: 'webp' })).body.url;
    const b = (await optimize(photo, { width: 4000, quality: 80, format: 'webp' })).body.url;
    expect(a).not.toBe(b);
    const before = transforms.renders;
    const first = await fetchBytes(a);
    const second = await fetchBytes(b);
    expect(second.headers.get('x-transform-cache')).toBe('hit');
    expect(second.headers.get('etag')).toBe(first.headers.get('etag'));
    expect(transforms.renders).toBe(before + 1);
  });

  it('answers 404 once the item is trashed or purged, and the URL works again after a restore', async () => {
    const id = await ingest(alice.actor, await noisy(300, 200), 'short-lived.jpg');
    const { url } = (await optimize(id, { width: 100 })).body;
    expect((await fetchBytes(url)).status).toBe(200);
    await t.app.services.media.trash(alice.actor, id);
    const trashed = await t.request('GET', url.slice(t.url.length));
    expect(trashed.status).toBe(404);
    expect(trashed.body.success).toBe(false);
    expect((await optimize(id)).status).toBe(409);
    await t.app.services.media.restore(alice.actor, id);
    expect((await fetchBytes(url)).status).toBe(200);
    await t.app.services.media.trash(alice.actor, id);
    await t.app.services.media.purge(alice.actor, id);
    expect((await t.request('GET', url.slice(t.url.length))).status).toBe(404);
  });

  it('needs no API key and answers HEAD', async () => {
    const { url } = (await optimize(photo, { width: 200 })).body;
    const head = await fetch(url, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('etag')).toMatch(/^"/);
  });
});
