// POST /api/automation/export/wordpress end to end through REST, against a fake WordPress site
// that answers in WordPress's own shapes (fake-wordpress.ts): a job that uploads each item with its
// title, alt text and caption, per-item results on the job, WordPress's error answers (401, 403,
// 413, 503 with Retry-After), ownership at the door, and the application password nowhere: not in
// the job row, the answers or the logs, and its sealed copy gone once the job ends.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_FETCH, startTestApp, type TestApp } from '../helpers/app.js';
import { waitForJob } from '../helpers/jobs.js';
import { form, photo } from '../helpers/images.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/platform/logger.js';
import { CREDENTIALS_GONE } from '../../src/modules/automation/exports/exports.job.js';
import { startFakeWordPress, type FakeWordPress } from './fake-wordpress.js';
import { startReceiver, type Receiver } from './receiver.js';

const defaults = loadConfig({});
const PASSWORD = 'abcd EFGH ijkl MNOP qrst UVWX';
const USER = 'editor';

let t: TestApp;
let wp: FakeWordPress;
let receiver: Receiver;
const logLines: string[] = [];

beforeAll(async () => {
  wp = await startFakeWordPress();
  wp.users.set(USER, PASSWORD);
  wp.users.set('author', 'zzzz zzzz zzzz zzzz');
  wp.cannotUpload.add('author');
  receiver = await startReceiver();
  t = await startTestApp(
    {
      fetch: LOCAL_FETCH,
      jobs: { concurrency: 2, leaseMs: 10_000, pollMs: 20 },
      exports: { ...defaults.exports, allowHttp: true, maxRetries: 2 },
      webhooks: { ...defaults.webhooks, allowHttp: true, pollMs: 20, retryDelaysMs: [20] },
    },
    { logger: createLogger('trace', { write: (line: string) => void logLines.push(line) }) },
  );
});
afterAll(async () => {
  await t?.stop();
  await wp?.close();
  await receiver?.close();
});

let seed = 0;
/** A media item of the account, uploaded through the API with a name, caption and tags. */
async function upload(key: string, name = 'harbour.jpg', extra: Record<string, string> = {}): Promise<number> {
  const res = await t.request('POST', '/api/media/upload', { key, form: form({ body: await photo('#2a6f97', { seed: ++seed, width: 64, height: 48 }), name, type: 'image/jpeg' }, extra) });
  expect(res.status, res.text).toBe(201);
  return res.body.media_id as number;
}

function exportBody(mediaIds: number[], overrides: Record<string, unknown> = {}) {
  return { wp_url: wp.url, wp_user: USER, wp_password: PASSWORD, media_ids: mediaIds, ...overrides };
}

async function startExport(key: string, body: Record<string, unknown>) {
  const res = await t.request('POST', '/api/automation/export/wordpress', { key, body });
  expect(res.status, res.text).toBe(202);
  return res;
}

describe('a WordPress export', () => {
  it('uploads each item with its title, alt text and caption, and lists each remote id and URL on the job', async () => {
    const { key } = await t.createAccount('wp');
    await t.request('POST', '/api/automation/webhooks', { key, body: { url: `${receiver.url}/wp-hook`, events: ['job.completed'] } });
    const first = await upload(key, 'Harbour at dawn.jpg');
    await t.request('PATCH', `/api/media/${first}`, { key, body: { caption: 'Boats in the harbour at dawn' } });
    // Attribution comes with saved stock photos; set here directly.
    await t.app.services.db.prisma.mediaItem.update({ where: { id: first }, data: { attribution: 'Ann Example' } });
    const second = await upload(key, 'pier.jpg', { tags: '["pier","sea"]' });

    const started = await startExport(key, exportBody([first, second]));
    expect(started.body).toEqual({
      success: true,
      status: 'queued',
      job_id: expect.any(Number),
      message: expect.stringContaining(`/api/jobs/${started.body.job_id}`),
      poll_url: `/api/jobs/${started.body.job_id}`,
    });
    expect(started.text).not.toContain(PASSWORD);

    const done = await waitForJob(t, key, started.body.job_id);
    expect(done.body.status, done.text).toBe('completed');
    expect(done.body.kind).toBe('export.wordpress');
    const items = done.body.export.items as Array<Record<string, unknown>>;
    expect(done.body.export).toMatchObject({ destination: 'wordpress', target: wp.url, product_id: null, total: 2, exported: 2, failed: 0, pending: 0 });
    expect(items.map((i) => i.media_id)).toEqual([first, second]);
    for (const item of items) {
      expect(item).toMatchObject({ status: 'exported', error: null, remote_id: expect.stringMatching(/^\d+$/) });
      const remote = wp.media.get(Number(item.remote_id))!;
      expect(item.remote_url).toBe(`${wp.url}/wp-content/uploads/2026/11/${remote.filename}`);
      expect(remote.author).toBe(USER);
      expect(remote.mime).toBe('image/jpeg');
    }
    const [a, b] = items.map((i) => wp.media.get(Number(i.remote_id))!);
    expect(a).toMatchObject({ filename: 'Harbour-at-dawn.jpg', title: 'Harbour at dawn', alt_text: 'Boats in the harbour at dawn', caption: 'Boats in the harbour at dawn (Ann Example)' });
    expect(b).toMatchObject({ filename: 'pier.jpg', title: 'pier', alt_text: 'pier, sea', caption: '' });
    // The bytes WordPress got are the library's file.
    const stored = await t.app.services.db.prisma.mediaItem.findUniqueOrThrow({ where: { id: first } });
    expect(a!.sha256).toBe(stored.sha256);
    expect(a!.bytes).toBe(stored.bytes);
    // One request per item: the metadata went with the upload.
    const uploads = wp.requests.filter((r) => r.path === '/wp-json/wp/v2/media' && r.headers.authorization?.includes(Buffer.from(`${USER}:`).toString('base64').slice(0, 6)));
    expect(uploads.length).toBeGreaterThanOrEqual(2);
    expect(uploads.at(-1)!.headers['content-disposition']).toMatch(/^attachment; filename="[^"]+\.jpg"$/);

    // Webhooks fire as for every job.
    const [delivery] = await receiver.waitFor(1, '/wp-hook');
    expect(delivery!.json).toMatchObject({ type: 'job.completed', data: { job_id: started.body.job_id, kind: 'export.wordpress', status: 'completed' } });

    // The password is nowhere: not the job row, not the answers; its sealed copy went with the job.
    const row = await t.app.services.db.prisma.job.findUniqueOrThrow({ where: { id: started.body.job_id } });
    expect(JSON.stringify(row)).not.toContain('EFGH');
    expect(row.input).toEqual({ wp_url: wp.url, media_ids: [first, second] });
    expect(await t.app.services.db.prisma.exportCredential.count({ where: { jobId: row.id } })).toBe(0);
    expect(done.text).not.toContain('EFGH');
    const graph = await t.graphql(`query($id: Int!) { job(id: $id) { export { target items { remoteId status } } } }`, { id: row.id }, { key });
    expect(graph.body.data.job.export.items).toHaveLength(2);
    expect(graph.text).not.toContain('EFGH');
  });

  it('sets the title, alt text and caption with a second request when the upload dropped them', async () => {
    const { key } = await t.createAccount('wp');
    const id = await upload(key, 'lighthouse.png');
    await t.request('PATCH', `/api/media/${id}`, { key, body: { caption: 'A lighthouse' } });
    wp.ignoreUploadParameters = true;
    try {
      const started = await startExport(key, exportBody([id]));
      const done = await waitForJob(t, key, started.body.job_id);
      expect(done.body.status, done.text).toBe('completed');
      const remoteId = Number(done.body.export.items[0].remote_id);
      expect(wp.media.get(remoteId)).toMatchObject({ alt_text: 'A lighthouse', caption: 'A lighthouse', title: 'lighthouse' });
      expect(wp.requests.some((r) => r.path === `/wp-json/wp/v2/media/${remoteId}` && r.method === 'POST')).toBe(true);
    } finally {
      wp.ignoreUploadParameters = false;
    }
  });

  it('sends a caption too long for a URL in the update instead', async () => {
    const { key } = await t.createAccount('wp');
    const id = await upload(key, 'temple.jpg');
    const caption = '京都の寺院と紅葉'.repeat(100);
    await t.request('PATCH', `/api/media/${id}`, { key, body: { caption } });
    const started = await startExport(key, exportBody([id]));
    const done = await waitForJob(t, key, started.body.job_id);
    expect(done.body.status, done.text).toBe('completed');
    const remoteId = Number(done.body.export.items[0].remote_id);
    expect(wp.media.get(remoteId)).toMatchObject({ caption, alt_text: caption.slice(0, 500), title: 'temple' });
    const sent = wp.requests.find((r) => r.path === '/wp-json/wp/v2/media' && r.status === 201 && wp.media.get(remoteId)?.bytes === r.bytes);
    expect(sent?.query).toEqual({});
  });

  it('fails the job on refused credentials after one request, before any file is sent', async () => {
    const { key } = await t.createAccount('wp');
    const ids = [await upload(key), await upload(key), await upload(key)];
    const before = wp.requests.length;
    const started = await startExport(key, exportBody(ids, { wp_password: 'wrong wrong wrong' }));
    const done = await waitForJob(t, key, started.body.job_id);
    expect(done.body).toMatchObject({ success: false, status: 'failed' });
    const refusal = 'WordPress refused the credentials (401 incorrect_password: The provided password is an invalid application password.)';
    expect(done.body.error).toMatch(new RegExp(`^no item was exported: ${refusal.replace(/[().]/g, '\\$&')}`));
    expect(done.body.export).toMatchObject({ total: 3, exported: 0, failed: 3, pending: 0 });
    expect(done.body.export.items.every((i: { error: string }) => i.error.startsWith(`not sent: ${refusal}`))).toBe(true);
    // One request (GET users/me), not one try per item.
    expect(wp.requests.slice(before).map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual(['GET /wp-json/wp/v2/users/me 401']);
    expect(done.text).not.toContain('wrong wrong');
  });

  it('refuses a user without the upload_files capability before sending anything', async () => {
    const { key } = await t.createAccount('wp');
    const started = await startExport(key, exportBody([await upload(key)], { wp_user: 'author', wp_password: 'zzzz zzzz zzzz zzzz' }));
    const done = await waitForJob(t, key, started.body.job_id);
    expect(done.body.error).toBe('no item was exported: the WordPress user author may not upload files (no upload_files capability)');
  });

  it("reports WordPress's 401 rest_cannot_create answer to an upload", async () => {
    const { key } = await t.createAccount('wp');
    wp.uploadRefusal = { status: 401, code: 'rest_cannot_create', message: 'Sorry, you are not allowed to upload media on this site.' };
    try {
      const started = await startExport(key, exportBody([await upload(key), await upload(key)]));
      const done = await waitForJob(t, key, started.body.job_id);
      expect(done.body.status).toBe('failed');
      expect(done.body.error).toContain('WordPress refused the credentials (401 rest_cannot_create: Sorry, you are not allowed to upload media on this site.)');
      expect(done.body.export.failed).toBe(2);
    } finally {
      wp.uploadRefusal = null;
    }
  });

  it('refuses an address that is not a WordPress REST API (404 rest_no_route)', async () => {
    const { key } = await t.createAccount('wp');
    const started = await startExport(key, exportBody([await upload(key)], { wp_url: `${wp.url}/not-wordpress` }));
    const done = await waitForJob(t, key, started.body.job_id);
    expect(done.body.error).toContain('no WordPress REST API at this wp_url (404 rest_no_route: No route was found matching the URL and request method.)');
  });

  it('reports an item the site refuses as too large (413) and exports the others', async () => {
    const { key } = await t.createAccount('wp');
    const small = await upload(key, 'small.jpg');
    const big = (await t.request('POST', '/api/media/upload', { key, form: form({ body: await photo('#aa3300', { seed: 999, width: 1600, height: 1200 }), name: 'big.jpg', type: 'image/jpeg' }) })).body.media_id as number;
    const bigBytes = (await t.app.services.db.prisma.mediaItem.findUniqueOrThrow({ where: { id: big } })).bytes;
    const smallBytes = (await t.app.services.db.prisma.mediaItem.findUniqueOrThrow({ where: { id: small } })).bytes;
    expect(bigBytes).toBeGreaterThan(smallBytes);
    wp.maxBodyBytes = Math.floor((bigBytes + smallBytes) / 2);
    try {
      const started = await startExport(key, exportBody([big, small]));
      const done = await waitForJob(t, key, started.body.job_id);
      expect(done.body.status, done.text).toBe('completed');
      expect(done.body.export).toMatchObject({ exported: 1, failed: 1 });
      expect(done.body.export.items[0]).toMatchObject({ media_id: big, status: 'failed', remote_id: null, error: expect.stringContaining('WordPress refused the file as too large (413)') });
      expect(done.body.export.items[1]).toMatchObject({ media_id: small, status: 'exported' });
    } finally {
      wp.maxBodyBytes = 50 * 1024 * 1024;
    }
  });

  it('tries again after a 503 with Retry-After', async () => {
    const { key } = await t.createAccount('wp');
    const id = await upload(key);
    wp.failNext([{ status: 503, headers: { 'Retry-After': '0' }, body: { code: 'maintenance', message: 'Briefly unavailable for scheduled maintenance.', data: { status: 503 } } }]);
    const started = await startExport(key, exportBody([id]));
    const done = await waitForJob(t, key, started.body.job_id);
    expect(done.body.status, done.text).toBe('completed');
    expect(done.body.export.items[0].status).toBe('exported');
  });

  it('runs concurrent exports of the same items side by side', async () => {
    const { key } = await t.createAccount('wp');
    const ids = [await upload(key), await upload(key)];
    const started = await Promise.all([1, 2, 3].map(() => startExport(key, exportBody(ids))));
    const done = await Promise.all(started.map((s) => waitForJob(t, key, s.body.job_id)));
    const remote = done.flatMap((d) => d.body.export.items.map((i: { remote_id: string }) => i.remote_id));
    expect(done.every((d) => d.body.status === 'completed')).toBe(true);
    expect(new Set(remote).size).toBe(6);
  });

  it('fails a job whose sealed credentials are gone with a clear error (a crash or rerun after the job ended)', async () => {
    const { key } = await t.createAccount('wp');
    const actor = await t.app.services.auth.authenticate(key);
    // A job row as the service writes it, but without its credential row (as after the job ended).
    const job = await t.app.services.jobs.create(actor, 'export.wordpress', { wp_url: wp.url, media_ids: [1] });
    await t.app.services.queue.enqueue(job.id);
    const done = await waitForJob(t, key, job.id);
    expect(done.body).toMatchObject({ status: 'failed', error: CREDENTIALS_GONE });
  });
});

describe('refused at the door', () => {
  it('refuses another account\'s item (404) and a trashed one (409) before any job or upload', async () => {
    const { key } = await t.createAccount('wp');
    const other = await t.createAccount('wp-other');
    const mine = await upload(key);
    const theirs = await upload(other.key);
    const jobsBefore = await t.app.services.db.prisma.job.count();
    const requestsBefore = wp.requests.length;
    const foreign = await t.request('POST', '/api/automation/export/wordpress', { key, body: exportBody([mine, theirs]) });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ success: false, error: `no media item ${theirs}` });
    const missing = await t.request('POST', '/api/automation/export/wordpress', { key, body: exportBody([2_000_000_000]) });
    expect(missing.status).toBe(404);
    await t.request('DELETE', `/api/media/${mine}`, { key });
    const trashed = await t.request('POST', '/api/automation/export/wordpress', { key, body: exportBody([mine]) });
    expect(trashed.status).toBe(409);
    expect(trashed.body.error).toBe(`media_ids: media item ${mine} is in the trash; restore it to export it`);
    expect(await t.app.services.db.prisma.job.count()).toBe(jobsBefore);
    expect(wp.requests.length).toBe(requestsBefore);
  });

  it.each([
    [{ wp_url: undefined }, 'wp_url is required: the https:// address of the WordPress site'],
    [{ wp_user: undefined }, 'wp_user is required'],
    [{ wp_password: undefined }, 'wp_password is required'],
    [{ wp_password: '' }, 'wp_password is required'],
    [{ media_ids: undefined }, 'media_ids is required: an array of 1 to 100 integer media ids'],
    [{ media_ids: [] }, 'media_ids: expected 1 to 100 media ids'],
    [{ media_ids: Array.from({ length: 101 }, (_, i) => i + 1) }, 'media_ids: expected at most 100 media ids in one export'],
    [{ media_ids: [1.5] }, 'media_ids.0: expected an integer id'],
    [{ media_ids: ['seven'] }, 'media_ids.0: expected an integer id'],
    [{ media_ids: [3, 3] }, 'media_ids: media item 3 is listed twice'],
    [{ wp_url: 'ftp://blog.example.com' }, 'wp_url: expected an absolute https:// URL'],
    [{ wp_url: 'https://10.0.0.5/blog' }, 'wp_url: refused: 10.0.0.5 is a private address'],
    [{ wp_url: 'https://admin:pw@blog.example.com' }, 'wp_url: URLs with credentials (user:password@) are not allowed; send wp_user and wp_password'],
    [{ wp_user: 'a:b' }, 'wp_user: a user name cannot contain ":"'],
    [{ wp_password: 'pw\r\nX-Injected: 1' }, 'wp_password: control characters are not allowed'],
    [{ wp_password: 'x'.repeat(257) }, 'wp_password: expected at most 256 characters'],
  ])('answers 400 for %j', async (change, message) => {
    const { key } = await t.createAccount('wp');
    const body: Record<string, unknown> = { ...exportBody([1]), ...change };
    for (const [field, value] of Object.entries(change)) if (value === undefined) delete body[field];
    const res = await t.request('POST', '/api/automation/export/wordpress', { key, body });
    expect(res.status, res.text).toBe(400);
    expect(res.body.error).toContain(message);
    expect(res.text).not.toContain('EFGH');
  });

  it('takes the master key only: 401 without a key, 403 for sub-keys of every scope', async () => {
    const { key } = await t.createAccount('wp');
    const id = await upload(key);
    const none = await t.request('POST', '/api/automation/export/wordpress', { body: exportBody([id]) });
    expect(none.status).toBe(401);
    for (const scope of ['scrape', 'generate', 'search', 'media']) {
      const sub = (await t.request('POST', '/api/platform/sub-keys', { key, body: { scopes: scope } })).body.sub_key as string;
      const res = await t.request('POST', '/api/automation/export/wordpress', { key: sub, body: exportBody([id]) });
      expect(res.status, scope).toBe(403);
      expect(res.body.error).toBe('this operation needs the account master key; sub-keys cannot call it');
    }
    const graph = await t.graphql('mutation($input: WordPressExportInput!) { exportToWordPress(input: $input) { __typename } }', {
      input: { wpUrl: wp.url, wpUser: USER, wpPassword: PASSWORD, mediaIds: [id] },
    });
    expect(graph.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });
});

it('never logs the application password', () => {
  const logged = logLines.join('\n');
  expect(logged.length).toBeGreaterThan(0);
  for (const secret of ['EFGH', 'wrong wrong', 'zzzz zzzz', Buffer.from(`${USER}:${PASSWORD}`).toString('base64')]) expect(logged).not.toContain(secret);
});
