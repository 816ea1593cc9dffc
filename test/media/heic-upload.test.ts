// HEIC/HEIF through POST /api/media/upload: a JPEG is served, the HEIC is kept privately and purged
// with the item (the decoding itself: test/images/heic.test.ts).
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalBlobStore } from '../../src/platform/storage/index.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { brokenHeics, heicFixture as fixture } from '../helpers/heic.js';
import { form } from '../helpers/images.js';

const sha256 = (body: Buffer) => createHash('sha256').update(body).digest('hex');

describe('HEIC through POST /api/media/upload', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ uploadMaxBytes: 2 * 1024 * 1024 });
  });
  afterAll(() => t.stop());

  const upload = async (body: Buffer, name = 'IMG_0001.HEIC') => {
    const response = await fetch(`${t.url}/api/media/upload`, { method: 'POST', headers: { 'X-API-Key': t.ownerKey }, body: form({ body, name, type: 'image/heic' }) });
    return { status: response.status, body: await response.json() };
  };
  /** The keys of the media library's blobs, read through a second store over the app's folder. */
  const storedKeys = async () => {
    const keys: string[] = [];
    for await (const blob of new LocalBlobStore(join(t.config.dataDir, 'files')).list('media/')) keys.push(blob.key);
    return keys;
  };
  const blob = async (key: string) => {
    const found = await new LocalBlobStore(join(t.config.dataDir, 'files')).get(key);
    if (!found) return null;
    const chunks: Buffer[] = [];
    for await (const chunk of found.body) chunks.push(chunk as Buffer);
    return { contentType: found.info.contentType, body: Buffer.concat(chunks) };
  };

  it('serves a JPEG, keeps the HEIC privately, and purges both', async () => {
    const heic = fixture('scene.heic');
    const res = await upload(heic);
    expect(res.status).toBe(201);
    expect(res.body.media).toMatchObject({ name: 'IMG_0001.HEIC', type: 'image', mime: 'image/jpeg', format: 'heif', width: 330, height: 250 });
    expect(res.body.media.blockhash).toMatch(/^[0-9a-f]{64}$/);

    const file = await fetch(res.body.url);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('image/jpeg');
    expect(await sharp(Buffer.from(await file.arrayBuffer())).metadata()).toMatchObject({ format: 'jpeg', width: 330, height: 250 });

    // media/<account id>/<sha-256 of the upload>.*
    const keys = (await storedKeys()).filter((key) => key.includes(sha256(heic))).sort();
    const base = keys[0]!.replace(/\.jpg$/, '');
    expect(base).toMatch(new RegExp(`^media/\\d+/${sha256(heic)}$`));
    expect(keys).toEqual([`${base}.jpg`, `${base}.original.heic`, `${base}.thumb.webp`]);
    expect(await blob(`${base}.original.heic`)).toEqual({ contentType: 'image/heic', body: heic });

    const id = res.body.media_id;
    expect((await t.request('DELETE', `/api/media/${id}`, { key: t.ownerKey })).status).toBe(200);
    expect((await t.request('DELETE', `/api/media/${id}/purge`, { key: t.ownerKey })).body).toMatchObject({ success: true, purged: true });
    expect((await storedKeys()).filter((key) => key.includes(sha256(heic)))).toEqual([]);
  });

  it('purges the original in bulk too', async () => {
    const heic = fixture('alpha.heic');
    const id = (await upload(heic, 'alpha.heic')).body.media_id;
    expect((await storedKeys()).some((key) => key.endsWith(`${sha256(heic)}.original.heic`))).toBe(true);
    await t.request('POST', '/api/media/bulk', { key: t.ownerKey, body: { ids: [id], action: 'trash' } });
    expect((await t.request('POST', '/api/media/bulk', { key: t.ownerKey, body: { ids: [id], action: 'purge' } })).status).toBe(200);
    expect((await storedKeys()).filter((key) => key.includes(sha256(heic)))).toEqual([]);
  });

  it('answers 400 naming file for a broken HEIC, and stores nothing', async () => {
    const before = await storedKeys();
    for (const [, body] of brokenHeics()) {
      const res = await upload(body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ success: false });
      expect(res.body.error).toMatch(/^file: the heif image could not be (read|decoded)/);
    }
    expect(await storedKeys()).toEqual(before);
  });
});
