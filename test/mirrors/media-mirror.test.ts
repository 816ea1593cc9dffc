// POST /api/media/mirror checks the mirror: the URL is fetched and its image compared with the
// media item's own hashes; the same photo (exact or a resized, recompressed copy) is registered,
// anything else is refused with a 400 that says why, and nothing is registered. Ownership and keys
// are the media library's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_FETCH, startTestApp, type TestApp } from '../helpers/app.js';
import { form } from '../helpers/images.js';
import { nearCopy, scene, startImageHost, type ImageHost } from './fixtures.js';

let t: TestApp;
let host: ImageHost;

beforeAll(async () => {
  host = await startImageHost();
  t = await startTestApp({ fetch: LOCAL_FETCH, uploadMaxBytes: 2 * 1024 * 1024, uploadMaxPixels: 4_000_000 });
});

afterAll(async () => {
  await t?.stop();
  await host?.close();
});

async function upload(key: string, body: Buffer, name = 'photo.jpg', type = 'image/jpeg'): Promise<number> {
  const res = await t.request('POST', '/api/media/upload', { key, form: form({ body, name, type }) });
  expect(res.status, res.text).toBe(201);
  return res.body.media_id as number;
}

const mirror = (key: string, mediaId: number, url: string) => t.request('POST', '/api/media/mirror', { key, body: { media_id: mediaId, url } });

describe('POST /api/media/mirror', () => {
  it('registers a URL serving the same photo, exact or resized and recompressed', async () => {
    const account = await t.createAccount('media-mirror');
    const photo = await scene(8101);
    host.files.set('/m/exact.jpg', photo);
    host.files.set('/m/small.jpg', await nearCopy(photo));
    const id = await upload(account.key, photo);

    const exact = await mirror(account.key, id, `${host.url}/m/exact.jpg`);
    expect(exact.status, exact.text).toBe(200);
    expect(exact.body).toEqual({ success: true, mirrors: [{ id: expect.any(Number), url: `${host.url}/m/exact.jpg`, created_at: expect.any(String) }] });
    const small = await mirror(account.key, id, `${host.url}/m/small.jpg`);
    expect(small.body.mirrors.map((m: { url: string }) => m.url)).toEqual([`${host.url}/m/exact.jpg`, `${host.url}/m/small.jpg`]);

    // A URL already registered answers the list again without fetching it.
    const hits = host.hits.get('/m/exact.jpg');
    expect((await mirror(account.key, id, `${host.url}/m/exact.jpg`)).body.mirrors).toHaveLength(2);
    expect(host.hits.get('/m/exact.jpg')).toBe(hits);
  });

  it('refuses a URL whose image is another photo, or no image at all, and registers nothing', async () => {
    const account = await t.createAccount('media-mirror-bad');
    const photo = await scene(8102);
    host.files.set('/m/other.jpg', await scene(8103));
    const id = await upload(account.key, photo);
    const cases: Array<[string, RegExp]> = [
      [`${host.url}/m/other.jpg`, new RegExp(`^url: the image at this URL is not the same photo as media item ${id} \\(blockhash distance \\d+ of 256 bits; the same photo is within 31\\)$`)],
      [`${host.url}/note.txt`, /^url: the URL's answer is not a usable image: not a supported image, video or document \(detected plain text\)$/],
      [`${host.url}/huge.jpg`, /^url: refused to fetch .*: the response is larger than the limit of 2097152 bytes$/],
      [`${host.url}/to-private.jpg`, /^url: refused to fetch http:\/\/127\.0\.0\.2:\d+\/: 127\.0\.0\.2 is a loopback address$/],
      [`${host.url}/m/missing.jpg`, /^url: the URL answered HTTP 404$/],
      ['http://169.254.169.254/latest/meta-data', /^url: refused: /],
    ];
    for (const [url, error] of cases) {
      const res = await mirror(account.key, id, url);
      expect(res.status, url).toBe(400);
      expect(res.body.error).toMatch(error);
    }
    expect(await t.app.services.db.prisma.mediaMirror.count({ where: { mediaId: id } })).toBe(0);
  });

  it("is the owner's only, with the media scope; a document's mirror cannot be checked", async () => {
    const owner = await t.createAccount('media-mirror-owner');
    const other = await t.createAccount('media-mirror-other');
    const photo = await scene(8104);
    host.files.set('/m/owned.jpg', photo);
    const id = await upload(owner.key, photo);
    const theirs = await mirror(other.key, id, `${host.url}/m/owned.jpg`);
    expect(theirs.status).toBe(404);
    expect(theirs.body.error).toBe(`no media item ${id}`);
    expect(host.hits.get('/m/owned.jpg')).toBeUndefined(); // nothing fetched for a stranger
    expect((await t.request('POST', '/api/media/mirror', { body: { media_id: id, url: `${host.url}/m/owned.jpg` } })).status).toBe(401);
    const scrapeOnly = (await t.request('POST', '/api/platform/sub-keys', { key: owner.key, body: { scopes: 'scrape' } })).body.sub_key as string;
    expect((await mirror(scrapeOnly, id, `${host.url}/m/owned.jpg`)).status).toBe(403);

    const pdf = Buffer.from('%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Count 0/Kids[]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n');
    const doc = await upload(owner.key, pdf, 'doc.pdf', 'application/pdf');
    const refused = await mirror(owner.key, doc, `${host.url}/m/owned.jpg`);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toBe(`media item ${doc} is a document, not an image: only an image's mirror can be checked against its hashes`);
  });
});
