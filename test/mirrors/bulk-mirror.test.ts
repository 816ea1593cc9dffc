// Bulk mirror through REST and GraphQL: URLs (a list or a CSV file) fetched from a local image host
// and matched against the known image objects; exact and resized copies match, unrelated pictures,
// a non-image, an oversized body, too many pixels and a redirect to a refused address do not; each
// URL pays 0.5 coins once ever across all accounts (also when accounts race for it, and when a job
// runs again after a crash); the job is its owner's; fetches per host are bounded.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { LOCAL_FETCH, startTestApp, type TestApp, type TestResponse } from '../helpers/app.js';
import { form } from '../helpers/images.js';
import { makeKnown, nearCopy, scene, startImageHost, tooManyPixels, type ImageHost } from './fixtures.js';

let t: TestApp;
let host: ImageHost;
let seed = 7100;

beforeAll(async () => {
  host = await startImageHost();
  t = await startTestApp({
    fetch: LOCAL_FETCH,
    jobs: { concurrency: 3, leaseMs: 10_000, pollMs: 50 },
    uploadMaxBytes: 2 * 1024 * 1024,
    uploadMaxPixels: 4_000_000,
    mirrors: { ...loadConfig({}).mirrors, maxUrls: 12 },
  });
});

afterAll(async () => {
  await t?.stop();
  await host?.close();
});

/** A known photo served at `path` (and its bytes). */
async function knownPhoto(path: string): Promise<{ body: Buffer; objectId: number; url: string }> {
  const body = await scene(++seed);
  const objectId = await makeKnown(t, body);
  host.files.set(path, body);
  return { body, objectId, url: host.url + path };
}

/** A photo no image object is. */
async function unknownPhoto(path: string): Promise<string> {
  host.files.set(path, await scene(++seed));
  return host.url + path;
}

async function start(key: string, urls: unknown): Promise<TestResponse> {
  return t.request('POST', '/api/platform/bulk-mirror', { key, body: { urls } });
}

/** Polls the job as a client would until it leaves pending. */
async function finished(key: string, jobId: string, details = true): Promise<TestResponse> {
  const deadline = Date.now() + 25_000;
  for (;;) {
    const res = await t.request('GET', `/api/platform/bulk-mirror/${jobId}${details ? '?details=true' : ''}`, { key });
    if (res.body?.status !== 'pending') return res;
    if (Date.now() > deadline) throw new Error(`bulk mirror ${jobId} still pending: ${res.text}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function coins(accountId: number): Promise<number> {
  return (await t.app.services.ledger.wallet(accountId, 'coins')).balance / 10_000;
}

const byUrl = (res: TestResponse) => Object.fromEntries((res.body.urls as Array<{ url: string }>).map((u) => [u.url, u])) as Record<string, Record<string, unknown>>;

describe('a bulk mirror job', () => {
  it('matches exact and resized copies of known images, and says why the rest did not match', async () => {
    const account = await t.createAccount('mirror');
    const a = await knownPhoto('/photo-a.jpg');
    const b = await knownPhoto('/photo-b.jpg');
    host.files.set('/copies/b-small.jpg', await nearCopy(b.body));
    host.files.set('/pixels.png', await tooManyPixels());
    const unrelated = await unknownPhoto('/unrelated.jpg');
    const urls = [
      a.url,
      `${host.url.replace('http://', 'HTTP://')}/photo-a.jpg#top`, // the same URL, spelled differently
      `  ${a.url}  `,
      `${host.url}/copies/b-small.jpg`,
      unrelated,
      `${host.url}/note.txt`,
      `${host.url}/huge.jpg`,
      `${host.url}/pixels.png`,
      `${host.url}/to-private.jpg`,
      `${host.url}/missing.jpg`,
    ];
    const started = await start(account.key, urls);
    expect(started.status, started.text).toBe(202);
    expect(started.body).toEqual({ success: true, job_id: expect.stringMatching(/^\d+$/), total_urls: 8, status: 'pending', poll_url: `/api/platform/bulk-mirror/${started.body.job_id}` });
    expect(Object.keys(started.body)).toEqual(['success', 'job_id', 'total_urls', 'status', 'poll_url']);

    const done = await finished(account.key, started.body.job_id);
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ success: true, status: 'completed', total_urls: 8, matched: 2, unmatched: 6, coins_earned: 1, job_id: started.body.job_id, checked: 8, error: null });
    expect(Object.keys(done.body).slice(0, 6)).toEqual(['success', 'status', 'total_urls', 'matched', 'unmatched', 'coins_earned']);
    const outcome = byUrl(done);
    expect(done.body.urls.map((u: { url: string }) => u.url)).toEqual([a.url, `${host.url}/copies/b-small.jpg`, unrelated, `${host.url}/note.txt`, `${host.url}/huge.jpg`, `${host.url}/pixels.png`, `${host.url}/to-private.jpg`, `${host.url}/missing.jpg`]);
    expect(outcome[a.url]).toMatchObject({ state: 'matched', image_object_id: a.objectId, distance: 0, coins: 0.5, reason: null });
    expect(outcome[`${host.url}/copies/b-small.jpg`]).toMatchObject({ state: 'matched', image_object_id: b.objectId, coins: 0.5 });
    expect(outcome[`${host.url}/copies/b-small.jpg`]!.distance).toBeGreaterThan(0);
    expect(outcome[unrelated]).toMatchObject({ state: 'unmatched', image_object_id: null, coins: 0, reason: expect.stringMatching(/no known image object/) });
    expect(outcome[`${host.url}/note.txt`]!.reason).toMatch(/not a usable image: not a supported image/);
    expect(outcome[`${host.url}/huge.jpg`]!.reason).toMatch(/byte/);
    expect(outcome[`${host.url}/pixels.png`]!.reason).toMatch(/more pixels than the 4,000,000-pixel limit; refused before decoding/);
    expect(outcome[`${host.url}/to-private.jpg`]!.reason).toMatch(/refused to fetch .*127\.0\.0\.2/);
    expect(outcome[`${host.url}/missing.jpg`]!.reason).toMatch(/HTTP 404/);
    // The redirect's target was judged, never asked.
    expect(await coins(account.id)).toBe(1);

    // Without details the answer is the spec's fields and ours, no list.
    const plain = await t.request('GET', `/api/platform/bulk-mirror/${started.body.job_id}`, { key: account.key });
    expect(plain.body.urls).toBeUndefined();
    expect(plain.body.coins_earned).toBe(1);
  });

  it('pays a URL once ever: the same account or another sending it again earns nothing', async () => {
    const first = await t.createAccount('mirror-first');
    const second = await t.createAccount('mirror-second');
    const photo = await knownPhoto('/again.jpg');
    const one = await finished(first.key, (await start(first.key, [photo.url])).body.job_id);
    expect(one.body).toMatchObject({ matched: 1, coins_earned: 0.5 });
    for (const account of [first, second]) {
      const again = await finished(account.key, (await start(account.key, [`${photo.url}#again`])).body.job_id);
      expect(again.body).toMatchObject({ status: 'completed', matched: 1, unmatched: 0, coins_earned: 0 });
      expect(again.body.urls[0]).toMatchObject({ state: 'matched', coins: 0, reason: expect.stringMatching(/already registered as a mirror of image object \d+: a URL is paid once/) });
    }
    expect(await coins(first.id)).toBe(0.5);
    expect(await coins(second.id)).toBe(0);
    expect(await t.app.services.db.prisma.objectMirror.count({ where: { url: photo.url } })).toBe(1);
  });

  it('pays once when accounts race for the same URL', async () => {
    const photo = await knownPhoto('/race.jpg');
    const racers = await Promise.all([1, 2, 3, 4].map(() => t.createAccount('racer')));
    const started = await Promise.all(racers.map((r) => start(r.key, [photo.url])));
    const done = await Promise.all(started.map((s, i) => finished(racers[i]!.key, s.body.job_id)));
    expect(done.map((d) => d.body.matched)).toEqual([1, 1, 1, 1]);
    expect(done.map((d) => d.body.coins_earned).sort()).toEqual([0, 0, 0, 0.5]);
    const balances = await Promise.all(racers.map((r) => coins(r.id)));
    expect(balances.reduce((sum, b) => sum + b, 0)).toBe(0.5);
    expect(await t.app.services.db.prisma.objectMirror.findMany({ where: { url: photo.url } })).toHaveLength(1);
  });

  it('runs again after a crash without paying twice: only URLs still pending are checked', async () => {
    const account = await t.createAccount('mirror-crash');
    const one = await knownPhoto('/crash-1.jpg');
    const two = await knownPhoto('/crash-2.jpg');
    const started = await start(account.key, [one.url, two.url]);
    const jobId = Number(started.body.job_id);
    expect((await finished(account.key, started.body.job_id)).body.coins_earned).toBe(1);
    const hitsBefore = host.hits.get('/crash-1.jpg');

    // As a crash between the two URLs would leave it: the job queued again, the second URL not recorded.
    const prisma = t.app.services.db.prisma;
    await prisma.mirrorCheck.updateMany({ where: { bulkMirrorId: jobId, url: two.url }, data: { state: 'pending', coins: 0n, objectId: null, distance: null, checkedAt: null } });
    await prisma.job.update({ where: { id: jobId }, data: { state: 'queued', finishedAt: null } });
    await t.app.services.queue.enqueue(jobId);
    const rerun = await finished(account.key, started.body.job_id);
    expect(rerun.body).toMatchObject({ status: 'completed', matched: 2, unmatched: 0 });
    expect(host.hits.get('/crash-1.jpg')).toBe(hitsBefore); // recorded before the crash: not fetched again
    expect(byUrl(rerun)[one.url]).toMatchObject({ coins: 0.5 });
    expect(byUrl(rerun)[two.url]).toMatchObject({ state: 'matched', coins: 0, reason: expect.stringMatching(/already registered/) });
    expect(await coins(account.id)).toBe(1);
  });

  it('over the daily cap, leaves a matched URL unregistered and unpaid, so it can be paid another day', async () => {
    const account = await t.createAccount('mirror-cap');
    const one = await knownPhoto('/cap-1.jpg');
    const two = await knownPhoto('/cap-2.jpg');
    const capTo = (cap: number) => t.request('PATCH', '/api/admin/rewards', { admin: true, body: { daily_caps: { bulk_mirror_match: cap } } });
    expect((await capTo(1)).status).toBe(200);
    try {
      const done = await finished(account.key, (await start(account.key, [one.url, two.url])).body.job_id);
      expect(done.body).toMatchObject({ status: 'completed', matched: 2, coins_earned: 0.5 });
      const capped = (done.body.urls as Array<Record<string, unknown>>).find((u) => u.coins === 0)!;
      expect(capped.reason).toMatch(/^daily cap reached: 1 paid bulk_mirror_match awards per day; the URL was not registered/);
      expect(await t.app.services.db.prisma.objectMirror.count({ where: { url: capped.url as string } })).toBe(0);
    } finally {
      expect((await capTo(5000)).status).toBe(200);
    }
    const later = await finished(account.key, (await start(account.key, [one.url, two.url])).body.job_id);
    expect(later.body).toMatchObject({ matched: 2, coins_earned: 0.5 });
    expect(await coins(account.id)).toBe(1);
  });

  it('fetches at most two URLs of one host at a time', async () => {
    const account = await t.createAccount('mirror-slow');
    const urls = await Promise.all([1, 2, 3, 4, 5, 6].map((i) => unknownPhoto(`/slow/${i}.jpg`)));
    const done = await finished(account.key, (await start(account.key, urls)).body.job_id);
    expect(done.body).toMatchObject({ status: 'completed', unmatched: 6 });
    expect(host.maxInFlight()).toBe(2);
  });
});

describe('what a request may be', () => {
  const bad = async (body: unknown) => {
    const { key } = await t.createAccount('mirror-bad');
    return t.request('POST', '/api/platform/bulk-mirror', { key, body });
  };

  it('needs a file or urls, every URL an http(s) one the service may fetch, and no more than the limit', async () => {
    const cases: Array<[unknown, string]> = [
      [{}, 'file or urls is required: a CSV file (multipart field "file") or a JSON array of URLs ("urls")'],
      [{ urls: [] }, 'file or urls is required: a CSV file (multipart field "file") or a JSON array of URLs ("urls")'],
      [{ urls: 'https://example.com/a.jpg' }, 'urls: expected an array of URL strings, e.g. ["https://example.com/a.jpg"] (JSON text in a form)'],
      [{ urls: ['https://example.com/a.jpg', 7] }, 'urls.1: expected URL strings'],
      [{ urls: ['https://example.com/a.jpg', 'ftp://example.com/b.jpg'] }, 'urls.1: expected an absolute http or https URL, not "ftp://example.com/b.jpg"'],
      [{ urls: ['example.com/a.jpg'] }, 'urls.0: expected an absolute http or https URL, not "example.com/a.jpg"'],
      [{ urls: [`https://example.com/${'a'.repeat(2100)}`] }, 'urls.0: expected at most 2048 characters'],
      [{ urls: ['http://10.0.0.1/a.jpg'] }, expect.stringMatching(/^urls\.0: refused: /) as unknown as string],
      [{ urls: ['http://user:pw@example.com/a.jpg'] }, expect.stringMatching(/^urls\.0: refused: /) as unknown as string],
      [{ urls: Array.from({ length: 13 }, (_, i) => `https://example.com/${i}.jpg`) }, 'urls: expected at most 12 URLs per request; this one has 13'],
    ];
    for (const [body, error] of cases) {
      const res = await bad(body);
      expect(res.status, JSON.stringify(body).slice(0, 100)).toBe(400);
      expect(res.body).toEqual({ success: false, error });
    }
    // Nothing was queued for any of them.
    expect(await t.app.services.db.prisma.job.count({ where: { kind: 'bulk_mirror', account: { handle: { startsWith: 'mirror-bad' } } } })).toBe(0);
  });

  it('takes a CSV file (multipart), with urls beside it or alone, and names a bad cell by line and column', async () => {
    const account = await t.createAccount('mirror-csv');
    const photo = await knownPhoto('/csv-known.jpg');
    const other = await unknownPhoto('/csv,other.jpg');
    const csv = (text: string, fields: Record<string, string> = {}) =>
      t.request('POST', '/api/platform/bulk-mirror', { key: account.key, form: form({ body: Buffer.from(text), name: 'urls.csv', type: 'text/csv' }, fields) });
    const text = `\ufeffurl,mirror\r\n${photo.url},"${other}"\r\n,\r\n"${photo.url}#dup"\r\n`;
    const started = await csv(text, { urls: JSON.stringify([`${host.url}/note.txt`]) });
    expect(started.status, started.text).toBe(202);
    expect(started.body.total_urls).toBe(3);
    const done = await finished(account.key, started.body.job_id);
    expect(done.body).toMatchObject({ status: 'completed', matched: 1, unmatched: 2, coins_earned: 0.5 });
    expect(done.body.urls.map((u: { url: string }) => u.url)).toEqual([photo.url, other, `${host.url}/note.txt`]);

    const badCell = await csv(`url\n${photo.url}\n${photo.url}, www.example.com/a.jpg\n`);
    expect(badCell.status).toBe(400);
    expect(badCell.body.error).toBe('file: line 3, column 2: expected an absolute http or https URL, not "www.example.com/a.jpg"');
    expect((await csv('url\n\n')).body.error).toBe('file: the CSV holds no URL');
    expect((await csv('"unclosed\n')).body.error).toMatch(/^file: not a readable CSV: Quote Not Closed/);
    const tooMany = await csv(Array.from({ length: 13 }, (_, i) => `https://example.com/${i}.jpg`).join('\n'));
    expect(tooMany.body.error).toBe('file: expected at most 12 URLs per request; this one has 13');
    const large = await csv('x'.repeat(2 * 1024 * 1024 + 10));
    expect(large.status).toBe(413);
  });

  it('counts duplicates as sent against the limit, and once in total_urls', async () => {
    const { key } = await t.createAccount('mirror-dupes');
    const url = await unknownPhoto('/dupes.jpg');
    const res = await start(key, Array.from({ length: 12 }, (_, i) => (i % 2 ? url : `${url}#${i}`)));
    expect(res.status).toBe(202);
    expect(res.body.total_urls).toBe(1);
    await finished(key, res.body.job_id);
  });
});

describe('ownership and keys', () => {
  it("answers a job to its owner only, and needs the media scope", async () => {
    const owner = await t.createAccount('mirror-owner');
    const other = await t.createAccount('mirror-other');
    const url = await unknownPhoto('/owned.jpg');
    const jobId = (await start(owner.key, [url])).body.job_id as string;
    await finished(owner.key, jobId);

    const theirs = await t.request('GET', `/api/platform/bulk-mirror/${jobId}`, { key: other.key });
    expect(theirs.status).toBe(404);
    expect(theirs.body).toEqual({ success: false, error: `no bulk mirror job ${jobId}` });
    expect((await t.request('GET', `/api/platform/bulk-mirror/${jobId}`)).status).toBe(401);
    for (const text of ['abc', '0', '99999999999', '-1', '1.5']) {
      const res = await t.request('GET', `/api/platform/bulk-mirror/${text}`, { key: owner.key });
      expect(res.status, text).toBe(404);
      expect(res.body.error).toMatch(/^no bulk mirror job /);
    }
    // The job is also a job (scrape scope), as every job is.
    const asJob = await t.request('GET', `/api/jobs/${jobId}`, { key: owner.key });
    expect(asJob.body).toMatchObject({ success: true, status: 'completed', job_id: Number(jobId), kind: 'bulk_mirror' });
    // A job of another kind is not a bulk mirror.
    const scrape = await t.app.services.jobs.create(await t.app.services.auth.authenticate(owner.key), 'scrape', {});
    expect((await t.request('GET', `/api/platform/bulk-mirror/${scrape.id}`, { key: owner.key })).status).toBe(404);

    const subKey = async (scopes: string) => (await t.request('POST', '/api/platform/sub-keys', { key: owner.key, body: { scopes } })).body.sub_key as string;
    const media = await subKey('media');
    expect((await t.request('GET', `/api/platform/bulk-mirror/${jobId}`, { key: media })).status).toBe(200);
    const started = await start(media, [url]);
    expect(started.status).toBe(202);
    await finished(owner.key, started.body.job_id);
    const noMedia = await subKey('scrape,generate,search');
    for (const res of [await t.request('GET', `/api/platform/bulk-mirror/${jobId}`, { key: noMedia }), await start(noMedia, [url])]) {
      expect(res.status).toBe(403);
      expect(res.body.error).toBe("this sub-key lacks the 'media' scope needed for this operation");
    }
  });

  it('offers the same through GraphQL, with the URLs of one state', async () => {
    const account = await t.createAccount('mirror-gql');
    const photo = await knownPhoto('/gql.jpg');
    const other = await unknownPhoto('/gql-other.jpg');
    const started = await t.graphql(
      'mutation($urls: [String!]) { startBulkMirror(urls: $urls) { __typename ... on MutationStartBulkMirrorSuccess { data { jobId status totalUrls } } ... on ServiceError { message } } }',
      { urls: [photo.url, other] },
      { key: account.key },
    );
    const job = started.body.data.startBulkMirror.data;
    expect(job).toMatchObject({ status: 'pending', totalUrls: 2 });
    await finished(account.key, job.jobId, false);
    const read = await t.graphql(
      'query($id: String!) { bulkMirrorJob(jobId: $id) { ... on QueryBulkMirrorJobSuccess { data { status matched unmatched coinsEarned urls(state: matched) { url coins imageObject { databaseId } } } } ... on ServiceError { message status } } }',
      { id: job.jobId },
      { key: account.key },
    );
    expect(read.body.data.bulkMirrorJob.data).toEqual({ status: 'completed', matched: 1, unmatched: 1, coinsEarned: 0.5, urls: [{ url: photo.url, coins: 0.5, imageObject: { databaseId: photo.objectId } }] });
    const stranger = await t.createAccount('mirror-gql-other');
    const refused = await t.graphql('query($id: String!) { bulkMirrorJob(jobId: $id) { ... on ServiceError { message status } } }', { id: job.jobId }, { key: stranger.key });
    expect(refused.body.data.bulkMirrorJob).toEqual({ message: `no bulk mirror job ${job.jobId}`, status: 404 });
  });
});
