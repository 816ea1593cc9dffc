// Byte ranges on the file routes, answered as a CDN origin does (src/http/send-blob.ts): a browser
// video seek (`bytes=N-`), a resumed download with If-Range, 416 past the end, a multi-range
// request answered whole with 200, a stale If-Range answered whole, on a library original and a job
// file; a stored video, thumbnails and transformations too; the ZIP answers 200 without ranges.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUICK_JOBS, LOCAL_FETCH, startTestApp, type TestApp } from '../helpers/app.js';
import { waitForJob } from '../helpers/jobs.js';
import { startPhotoSite, type PhotoSite } from '../helpers/photo-site.js';

let t: TestApp;
let site: PhotoSite;
let png: Buffer; // a few hundred KB of noise, stored byte for byte
let mediaUrl: string;
let jobFileUrl: string;
let zipUrl: string;
let thumbnailUrl: string;
let videoUrl: string;
let video: Buffer; // an MP4 header and 200 KB after it: stored and served as video/mp4
let transformUrl: string;
let freshTransformUrl: string; // never fetched before its ranged request: rendered for it

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

async function get(url: string, headers: Record<string, string> = {}) {
  const response = await fetch(url, { headers });
  return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
}

beforeAll(async () => {
  site = await startPhotoSite();
  png = site.png;
  const siteUrl = site.url;
  t = await startTestApp({ fetch: LOCAL_FETCH, jobs: QUICK_JOBS });

  const actor = await t.app.services.auth.authenticate(t.ownerKey);
  const { media } = await t.app.services.media.ingest(actor, { body: png, filename: 'noise.png' });
  const item = (await t.request('GET', `/api/media/${media.id}`, { key: t.ownerKey })).body.media;
  mediaUrl = item.url;
  thumbnailUrl = item.thumbnail_url;
  const ftyp = Buffer.from('000000186674797069736f6d0000020069736f6d6d703431', 'hex');
  video = Buffer.concat([ftyp, Buffer.from(Array.from({ length: 200_000 }, (_, i) => (i * 31 + (i >> 8)) & 0xff))]);
  const stored = await t.app.services.media.ingest(actor, { body: video, filename: 'clip.mp4' });
  expect(stored.media.kind).toBe('video');
  videoUrl = (await t.request('GET', `/api/media/${stored.media.id}`, { key: t.ownerKey })).body.media.url;
  const optimized = await t.request('POST', `/api/media/${media.id}/optimize`, { key: t.ownerKey, body: { width: 200, format: 'png' } });
  expect(optimized.status, optimized.text).toBe(200);
  transformUrl = optimized.body.url;
  freshTransformUrl = (await t.request('POST', `/api/media/${media.id}/optimize`, { key: t.ownerKey, body: { width: 120, format: 'png' } })).body.url;

  const started = await t.request('POST', '/api/scrape', { key: t.ownerKey, body: { url: `${siteUrl}/` } });
  expect(started.status, started.text).toBe(202);
  const done = await waitForJob(t, t.ownerKey, started.body.job_id);
  expect(done.body.status, done.text).toBe('completed');
  jobFileUrl = done.body.assets.items[0].download_url;
  zipUrl = done.body.download_url;
});
afterAll(async () => {
  await t?.stop();
  await site?.close();
});

describe.each([
  ['a media original', () => ({ url: mediaUrl, headers: {} })],
  ['a job file', () => ({ url: jobFileUrl, headers: { 'X-API-Key': t.ownerKey } })],
])('ranges of %s', (_name, target) => {
  it('answers whole with Accept-Ranges and a strong ETag', async () => {
    const { url, headers } = target();
    const whole = await get(url, headers);
    expect(whole.status).toBe(200);
    expect(whole.headers.get('accept-ranges')).toBe('bytes');
    expect(whole.headers.get('etag')).toMatch(/^"[^"]+"$/);
    expect(whole.headers.get('content-length')).toBe(String(png.length));
    expect(whole.bytes.equals(png)).toBe(true);
  });

  it('seeks like a browser video element: bytes=1000- gives 206 and the rest of the file', async () => {
    const { url, headers } = target();
    const seek = await get(url, { ...headers, Range: 'bytes=1000-' });
    expect(seek.status).toBe(206);
    expect(seek.headers.get('content-range')).toBe(`bytes 1000-${png.length - 1}/${png.length}`);
    expect(seek.headers.get('content-length')).toBe(String(png.length - 1000));
    expect(seek.bytes.equals(png.subarray(1000))).toBe(true);
    const suffix = await get(url, { ...headers, Range: 'bytes=-100' });
    expect(suffix.status).toBe(206);
    expect(suffix.bytes.equals(png.subarray(png.length - 100))).toBe(true);
  });

  it('resumes a download with If-Range: the two parts concatenate to the original', async () => {
    const { url, headers } = target();
    const half = Math.floor(png.length / 2);
    const first = await get(url, { ...headers, Range: `bytes=0-${half - 1}` });
    expect(first.status).toBe(206);
    const etag = first.headers.get('etag')!;
    const rest = await get(url, { ...headers, Range: `bytes=${half}-`, 'If-Range': etag });
    expect(rest.status).toBe(206);
    expect(sha256(Buffer.concat([first.bytes, rest.bytes]))).toBe(sha256(png));
    // A date If-Range equal to Last-Modified holds too.
    const byDate = await get(url, { ...headers, Range: `bytes=${half}-`, 'If-Range': first.headers.get('last-modified')! });
    expect(byDate.status).toBe(206);
  });

  it('answers a stale If-Range with the whole file (200)', async () => {
    const { url, headers } = target();
    for (const stale of ['"not-the-etag"', 'W/"weak"', 'Tue, 01 Jan 2019 00:00:00 GMT']) {
      const res = await get(url, { ...headers, Range: 'bytes=10-', 'If-Range': stale });
      expect(res.status, stale).toBe(200);
      expect(res.bytes.equals(png)).toBe(true);
    }
  });

  it('answers 416 with Content-Range: bytes */SIZE past the end', async () => {
    const { url, headers } = target();
    const res = await get(url, { ...headers, Range: `bytes=${png.length}-` });
    expect(res.status).toBe(416);
    expect(res.headers.get('content-range')).toBe(`bytes */${png.length}`);
    expect(JSON.parse(res.bytes.toString()).success).toBe(false);
  });

  it('answers several ranges with the whole file (200); a malformed Range is ignored', async () => {
    const { url, headers } = target();
    const multi = await get(url, { ...headers, Range: 'bytes=0-1,5-9' });
    expect(multi.status).toBe(200);
    expect(multi.headers.get('content-range')).toBeNull();
    expect(multi.bytes.equals(png)).toBe(true);
    // Overlapping ranges merge into one.
    const merged = await get(url, { ...headers, Range: 'bytes=0-9,5-19' });
    expect(merged.status).toBe(206);
    expect(merged.bytes.equals(png.subarray(0, 20))).toBe(true);
    const malformed = await get(url, { ...headers, Range: 'bytes=abc' });
    expect(malformed.status).toBe(200);
  });

  it('still answers 304 to a matching If-None-Match, also with a Range', async () => {
    const { url, headers } = target();
    const etag = (await get(url, headers)).headers.get('etag')!;
    const res = await get(url, { ...headers, 'If-None-Match': etag, Range: 'bytes=0-9' });
    expect(res.status).toBe(304);
  });
});

describe('other file routes', () => {
  it('lets a video element seek in a stored video', async () => {
    const seek = await get(videoUrl, { Range: 'bytes=1000-' });
    expect(seek.status).toBe(206);
    expect(seek.headers.get('content-type')).toBe('video/mp4');
    expect(seek.headers.get('content-range')).toBe(`bytes 1000-${video.length - 1}/${video.length}`);
    expect(seek.bytes.equals(video.subarray(1000))).toBe(true);
  });

  it('serves ranges of a thumbnail', async () => {
    const whole = await get(thumbnailUrl);
    expect(whole.status).toBe(200);
    expect(whole.headers.get('accept-ranges')).toBe('bytes');
    const part = await get(thumbnailUrl, { Range: 'bytes=-50' });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes ${whole.bytes.length - 50}-${whole.bytes.length - 1}/${whole.bytes.length}`);
    expect(part.bytes.equals(whole.bytes.subarray(-50))).toBe(true);
  });

  it('serves ranges of a transformation output, rendered or from the store', async () => {
    const whole = await get(transformUrl);
    expect(whole.status).toBe(200);
    expect(whole.headers.get('accept-ranges')).toBe('bytes');
    for (let i = 0; i < 2; i++) {
      const part = await get(transformUrl, { Range: 'bytes=100-199', 'If-Range': whole.headers.get('etag')! });
      expect(part.status).toBe(206);
      expect(part.headers.get('content-range')).toBe(`bytes 100-199/${whole.bytes.length}`);
      expect(part.bytes.equals(whole.bytes.subarray(100, 200))).toBe(true);
    }
    const rendered = await get(freshTransformUrl, { Range: 'bytes=10-19' });
    expect(rendered.headers.get('x-transform-cache')).toBe('miss');
    expect(rendered.status).toBe(206);
    const stored = await get(freshTransformUrl);
    expect(stored.headers.get('x-transform-cache')).toBe('hit');
    expect(rendered.bytes.equals(stored.bytes.subarray(10, 20))).toBe(true);
    const past = await get(transformUrl, { Range: `bytes=${whole.bytes.length + 5}-` });
    expect(past.status).toBe(416);
    expect(past.headers.get('content-range')).toBe(`bytes */${whole.bytes.length}`);
  });

  it('streams the ZIP whole, without ranges (Accept-Ranges: none; a Range is ignored)', async () => {
    const headers = { 'X-API-Key': t.ownerKey };
    const whole = await get(zipUrl, headers);
    expect(whole.status).toBe(200);
    expect(whole.headers.get('accept-ranges')).toBe('none');
    const ranged = await get(zipUrl, { ...headers, Range: 'bytes=100-' });
    expect(ranged.status).toBe(200);
    expect(ranged.headers.get('content-range')).toBeNull();
    expect(ranged.bytes.subarray(0, 4).equals(whole.bytes.subarray(0, 4))).toBe(true);
    expect(ranged.bytes.length).toBe(whole.bytes.length);
  });
});
