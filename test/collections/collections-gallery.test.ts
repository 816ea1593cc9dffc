// GET/POST /gallery/{token} over plain HTTP: the page of a shared collection, its security headers,
// the password form, the access cookie and what it is bound to, escaping, and what never shows.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { form, photo } from '../helpers/images.js';
import { GALLERY_CSP } from '../../src/http/gallery.js';
import { ACCESS_HOURS, LINK_MAX_FAILURES, MAX_FAILURES } from '../../src/modules/collections/gallery.service.js';

let t: TestApp;
let seed = 500;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.stop());

async function upload(key: string, name: string): Promise<number> {
  const body = form({ body: await photo('#cc6633', { seed: ++seed, width: 300, height: 200 }), name, type: 'image/jpeg' }, { name });
  const response = await fetch(`${t.url}/api/media/upload`, { method: 'POST', headers: { 'X-API-Key': key }, body });
  const json = await response.json();
  if (response.status !== 201) throw new Error(`upload failed: ${response.status} ${JSON.stringify(json)}`);
  return json.media_id as number;
}

async function collectionWith(key: string, name: string, mediaIds: number[], description?: string): Promise<number> {
  const created = await t.request('POST', '/api/media/collections', { key, body: { name, description } });
  if (mediaIds.length) await t.request('POST', `/api/media/collections/${created.body.collection_id}/items`, { key, body: { media_ids: mediaIds } });
  return created.body.collection_id as number;
}

async function share(key: string, id: number, body: Record<string, unknown>): Promise<string> {
  const res = await t.request('POST', `/api/media/collections/${id}/share`, { key, body });
  expect(res.status, res.text).toBe(200);
  return res.body.share_token as string;
}

const page = (token: string, cookie?: string) => fetch(`${t.url}/gallery/${token}`, { headers: cookie ? { Cookie: cookie } : {}, redirect: 'manual' });
const submit = (token: string, password: string) =>
  fetch(`${t.url}/gallery/${token}`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ password }).toString(), redirect: 'manual' });

function expectSecurityHeaders(res: Response) {
  expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
  expect(res.headers.get('content-security-policy')).toBe(GALLERY_CSP);
  expect(GALLERY_CSP).toContain("default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; form-action 'self'");
  expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  expect(res.headers.get('referrer-policy')).toBe('no-referrer');
  expect(res.headers.get('x-frame-options')).toBe('DENY');
  expect(res.headers.get('cache-control')).toBe('no-store');
}

const tiles = (body: string) => [...body.matchAll(/<li class="tile"><a href="([^"]+)"[^>]*><img src="([^"]+)"/g)].map((m) => ({ href: m[1]!.replace(/&amp;/g, '&'), src: m[2]!.replace(/&amp;/g, '&') }));

let owner: { key: string };
let token: string;
let visible: number[];
let trashed: number;
let otherToken: string;
const PASSWORD = 'open sesame 42';

beforeAll(async () => {
  owner = await t.createAccount('gallery');
  visible = [await upload(owner.key, 'Dunes.jpg'), await upload(owner.key, 'Lighthouse.jpg'), await upload(owner.key, 'Harbour.jpg')];
  trashed = await upload(owner.key, 'Binned.jpg');
  const id = await collectionWith(owner.key, 'Coast walk', [...visible, trashed], 'Three days\nalong the cliffs');
  await t.request('DELETE', `/api/media/${trashed}`, { key: owner.key });
  token = await share(owner.key, id, { public: false, password: PASSWORD });
  const other = await collectionWith(owner.key, 'Other things', [await upload(owner.key, 'Secret-other.jpg')]);
  otherToken = await share(owner.key, other, { public: true });
});

describe('GET /gallery/{token}', () => {
  it('answers unknown, malformed and revoked tokens with the same 404 page', async () => {
    for (const unknown of ['A'.repeat(32), 'short', 'x'.repeat(200)]) {
      const res = await page(unknown);
      expect(res.status).toBe(404);
      expectSecurityHeaders(res);
      expect(await res.text()).toContain('This gallery does not exist or is no longer shared.');
    }
  });

  it('shows only a password form for a protected link, revealing nothing of the collection', async () => {
    const res = await page(token);
    expect(res.status).toBe(200);
    expectSecurityHeaders(res);
    const body = await res.text();
    expect(body).toContain(`<form method="post" action="/gallery/${token}">`);
    expect(body).toContain('type="password"');
    expect(body).not.toContain('Coast walk');
    expect(body).not.toContain('cliffs');
    expect(body).not.toContain('/media/');
    expect(body).not.toContain('<script');
  });

  it('shows the form again with an error for a wrong or empty password, still revealing nothing', async () => {
    for (const wrong of ['open sesame 43', '']) {
      const res = await submit(token, wrong);
      expect(res.status).toBe(401);
      expectSecurityHeaders(res);
      expect(res.headers.get('set-cookie')).toBeNull();
      const body = await res.text();
      expect(body).toContain('That password is not right.');
      expect(body).toContain('type="password"');
      expect(body).not.toContain('Coast walk');
      expect(body).not.toContain('/media/');
    }
  });

  it('sets a path-scoped HttpOnly SameSite=Lax cookie for the right password and then shows the gallery', async () => {
    const res = await submit(token, PASSWORD);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/gallery/${token}`);
    const [cookie] = res.headers.getSetCookie();
    expect(cookie).toMatch(/^gallery_access=\d+\.[A-Za-z0-9_-]{43}; /);
    expect(cookie).toContain(`Path=/gallery/${token}`);
    expect(cookie).toContain(`Max-Age=${ACCESS_HOURS * 3600}`);
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Lax');
    const value = cookie!.split(';')[0]!;

    const shown = await page(token, value);
    expect(shown.status).toBe(200);
    expectSecurityHeaders(shown);
    const body = await shown.text();
    expect(body).toContain('<h1>Coast walk</h1>');
    expect(body).toContain('Three days\nalong the cliffs');
    expect(body).toContain('3 items');
    expect(body).not.toContain('Binned.jpg');
    expect(body).not.toContain('Secret-other.jpg');
    expect(body).not.toContain(`/media/${trashed}/`);
    const found = tiles(body);
    expect(found).toHaveLength(3);
    expect(found.map((f) => Number(f.src.split('/')[2]))).toEqual(visible);
    for (const { href, src } of found) {
      expect(src).toMatch(/^\/media\/\d+\/thumbnail\?v=[0-9a-f]{16}&sig=/);
      expect(href).toMatch(/^\/media\/\d+\/original\?v=[0-9a-f]{16}&sig=/);
      const thumb = await fetch(t.url + src);
      expect(thumb.status).toBe(200);
      expect(thumb.headers.get('content-type')).toBe('image/webp');
      const full = await fetch(t.url + href);
      expect(full.status).toBe(200);
      expect(full.headers.get('content-type')).toBe('image/jpeg');
    }
  });

  it('refuses a tampered, expired or other-gallery cookie', async () => {
    const collection = (await t.app.services.collections.byShareToken(token))!;
    const future = Math.floor(Date.now() / 1000) + 3600;
    const good = t.app.services.gallery.accessCookie(collection, future);
    expect(await (await page(token, `gallery_access=${good}`)).text()).toContain('<h1>Coast walk</h1>');
    const tampered = good.replace(/\.(.)/, (_m, c: string) => `.${c === 'A' ? 'B' : 'A'}`);
    expect(await (await page(token, `gallery_access=${tampered}`)).text()).toContain('type="password"');
    const longer = `${future + 999}.${good.split('.')[1]}`;
    expect(await (await page(token, `gallery_access=${longer}`)).text()).toContain('type="password"');
    const expired = t.app.services.gallery.accessCookie(collection, Math.floor(Date.now() / 1000) - 1);
    expect(await (await page(token, `gallery_access=${expired}`)).text()).toContain('type="password"');

    // The same password on another collection: a cookie of one gallery does not open the other.
    const twin = await collectionWith(owner.key, 'Twin', [visible[0]!]);
    const twinToken = await share(owner.key, twin, { password: PASSWORD });
    expect(await (await page(twinToken, `gallery_access=${good}`)).text()).toContain('type="password"');
  });

  it('stops the old link and its cookies when the collection is shared again', async () => {
    const id = await collectionWith(owner.key, 'Reshared', [visible[1]!]);
    const first = await share(owner.key, id, { password: 'first password' });
    const cookie = (await submit(first, 'first password')).headers.getSetCookie()[0]!.split(';')[0]!;
    expect(await (await page(first, cookie)).text()).toContain('<h1>Reshared</h1>');
    const second = await share(owner.key, id, { password: 'first password' });
    expect((await page(first, cookie)).status).toBe(404);
    expect(await (await page(second, cookie)).text()).toContain('type="password"');
  });

  it('opens a public link without a password; posting to it just redirects', async () => {
    const res = await page(otherToken);
    expect(res.status).toBe(200);
    expectSecurityHeaders(res);
    const body = await res.text();
    expect(body).toContain('<h1>Other things</h1>');
    expect(body).toContain('Secret-other.jpg');
    expect(body).not.toContain('Coast walk');
    expect(tiles(body)).toHaveLength(1);
    const posted = await submit(otherToken, 'anything');
    expect(posted.status).toBe(303);
    expect(posted.headers.getSetCookie()).toEqual([]);
  });

  it('escapes everything the owner wrote', async () => {
    const evil = await upload(owner.key, '"><img src=x onerror=alert(1)>.jpg');
    const id = await collectionWith(owner.key, '<script>alert("name")</script> & co', [evil], "<b>bold</b> it's");
    const res = await page(await share(owner.key, id, {}));
    const body = await res.text();
    expect(body).toContain('<h1>&lt;script&gt;alert(&quot;name&quot;)&lt;/script&gt; &amp; co</h1>');
    expect(body).toContain('&lt;b&gt;bold&lt;/b&gt; it&#39;s');
    expect(body).not.toContain('<script');
    expect(body).not.toContain('<img src=x');
    expect(body).toContain('&quot;&gt;&lt;img src=x onerror=alert(1)&gt;.jpg');
  });

  it(`answers 429 after ${MAX_FAILURES} wrong passwords from one address, before checking the password`, async () => {
    const id = await collectionWith(owner.key, 'Guarded', []);
    const guarded = await share(owner.key, id, { password: 'the real one' });
    for (let i = 0; i < MAX_FAILURES; i++) expect((await submit(guarded, `guess ${i}`)).status).toBe(401);
    const blocked = await submit(guarded, 'the real one');
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    expectSecurityHeaders(blocked);
    expect(await blocked.text()).toContain('Too many wrong passwords');
  });

  it(`checks exactly ${MAX_FAILURES} passwords when many guesses arrive at once, and counts them in the database`, async () => {
    const id = await collectionWith(owner.key, 'Raced', []);
    const raced = await share(owner.key, id, { password: 'the real one' });
    const answers = await Promise.all(Array.from({ length: 60 }, (_, i) => submit(raced, `guess ${i}`)));
    expect(answers.filter((r) => r.status === 401)).toHaveLength(MAX_FAILURES);
    expect(answers.filter((r) => r.status === 429)).toHaveLength(60 - MAX_FAILURES);
    // Durable: the count lives in the database, where every process (and the next start) sees it.
    const rows = await t.app.services.db.query<{ count: number }>(`SELECT "count" FROM "UsageCounter" WHERE "key" LIKE $1`, [`gallery:${id}:%`]);
    expect(rows.map((r) => r.count)).toEqual([MAX_FAILURES]);
  });

  it(`checks exactly ${LINK_MAX_FAILURES} passwords of one link when guesses come from many addresses at once`, async () => {
    const id = await collectionWith(owner.key, 'Spread', []);
    const spread = await share(owner.key, id, { password: 'the real one' });
    const gallery = t.app.services.gallery;
    // One instant for every attempt: the counters' windows are fixed, and a run that crossed a window
    // boundary between the guesses and the last call would start a fresh window (a flake seen in CI).
    const now = new Date();
    const answers = await Promise.all(Array.from({ length: 60 }, (_, i) => gallery.unlock(spread, `guess ${i}`, `198.51.100.${i}`, now)));
    expect(answers.filter((a) => a.state === 'wrong')).toHaveLength(LINK_MAX_FAILURES);
    expect(answers.filter((a) => a.state === 'blocked')).toHaveLength(60 - LINK_MAX_FAILURES);
    // The link stays closed to every address until the window ends, the right password included.
    expect((await gallery.unlock(spread, 'the real one', '203.0.113.9', now)).state).toBe('blocked');
  });

  it("gives a right password's unit of the link's count back: visitors who know it never use the link up", async () => {
    const id = await collectionWith(owner.key, 'Visited', []);
    const visited = await share(owner.key, id, { password: 'the real one' });
    const gallery = t.app.services.gallery;
    const now = new Date(); // one window for the whole story, as above
    for (let i = 0; i < LINK_MAX_FAILURES - 1; i++) expect((await gallery.unlock(visited, `guess ${i}`, `198.51.100.${i}`, now)).state).toBe('wrong');
    for (let i = 0; i < 5; i++) expect((await gallery.unlock(visited, 'the real one', `203.0.113.${i}`, now)).state).toBe('unlocked');
    expect((await gallery.unlock(visited, 'one more guess', '192.0.2.1', now)).state).toBe('wrong');
    expect((await gallery.unlock(visited, 'and another', '192.0.2.2', now)).state).toBe('blocked');
  });

  it('answers the 404 page for an unshared collection', async () => {
    const id = await collectionWith(owner.key, 'Unshared', [visible[2]!]);
    const shared = await share(owner.key, id, {});
    await t.request('POST', `/api/media/collections/${id}/share`, { key: owner.key, body: { public: false } });
    expect((await page(shared)).status).toBe(404);
    expect((await submit(shared, 'x')).status).toBe(404);
  });
});
