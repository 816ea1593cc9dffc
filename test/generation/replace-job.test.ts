// POST /api/replace/generate end to end: the queued job completes, its PNGs are the job's assets
// (listed with download_url, served by /files and /download), they are in the caller's media
// library, the webhook fires, only delivered images are charged, no vendor key is kept; and a rerun
// of the job after an interruption neither calls a provider again nor charges or stores twice.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { LOCAL_FETCH, startTestApp, type TestApp } from '../helpers/app.js';
import { waitForJob } from '../helpers/jobs.js';
import { loadConfig } from '../../src/config.js';
import { fakeGenerationConfig, startFakeGenerationProviders, type FakeGenerationProviders } from '../fixtures/generation/fake-providers.js';
import { startReceiver, type Receiver } from '../automation/receiver.js';
import { createGenerationHandler } from '../../src/modules/generation/generation.job.js';
import { GenerationBilling } from '../../src/modules/generation/generation.billing.js';

let fake: FakeGenerationProviders;
let receiver: Receiver;
let t: TestApp;

beforeAll(async () => {
  [fake, receiver] = await Promise.all([startFakeGenerationProviders(), startReceiver()]);
  t = await startTestApp({
    fetch: LOCAL_FETCH,
    jobs: { concurrency: 2, leaseMs: 10_000, pollMs: 50 },
    generation: fakeGenerationConfig(fake, { GENERATE_BREAKER_FAILURES: '1000' }),
    webhooks: { ...loadConfig({}).webhooks, allowHttp: true, pollMs: 20, timeoutMs: 2_000 },
  });
});
afterAll(async () => {
  await t?.stop();
  await receiver?.close();
  await fake?.close();
});
beforeEach(() => fake.reset());

async function account(credits = 10) {
  const made = await t.createAccount('replace');
  if (credits > 0) await t.request('POST', `/api/admin/accounts/${made.handle}/credits`, { admin: true, body: { amount: credits } });
  return made;
}

const providerCalls = () => fake.requests.pollinations.length + fake.requests.bfl.length + fake.requests.openai.length;

describe('POST /api/replace/generate', () => {
  it('queues a job whose PNGs become downloadable assets and media library items, and fires the webhook', async () => {
    const { key, id } = await account();
    await t.request('POST', '/api/automation/webhooks', { key, body: { url: `${receiver.url}/generation-hook` } });
    // Jobs take no vendor_key: one sent is refused by name (issue 20: the whole input is judged), never kept.
    const withKey = await t.request('POST', '/api/replace/generate', { key, body: { description: 'a clean photo of a harbour', style: 'cinematic', count: 2, vendor_key: 'openai:sk-must-not-be-kept' } });
    expect(withKey.status, withKey.text).toBe(400);
    expect(withKey.body.error).toBe('vendor_key: unknown field; expected description, style, count');
    const started = await t.request('POST', '/api/replace/generate', { key, body: { description: 'a clean photo of a harbour', style: 'cinematic', count: 2 } });
    expect(started.status, started.text).toBe(202);
    expect(Object.keys(started.body)).toEqual(['success', 'status', 'job_id', 'message', 'poll_url']);
    const jobId = started.body.job_id as number;
    expect(started.body).toMatchObject({ success: true, status: 'queued', poll_url: `/api/jobs/${jobId}` });

    const done = await waitForJob(t, key, jobId);
    expect(done.body.status, done.text).toBe('completed');
    expect(done.body.assets.count).toBe(2);
    const items = done.body.assets.items as Array<Record<string, string | number>>;
    expect(items.map((i) => i.filename)).toEqual(['generated-1-pollinations.png', 'generated-2-pollinations.png']);
    for (const item of items) {
      expect(item).toMatchObject({ type: 'image', url: 'generated:pollinations' });
      expect(item.download_url).toBe(`${t.url}/files/${jobId}/${item.filename}`);
      const file = await fetch(item.download_url as string, { headers: { 'X-API-Key': key } });
      expect(file.headers.get('content-type')).toBe('image/png');
      const bytes = Buffer.from(await file.arrayBuffer());
      expect(bytes.length).toBe(item.size);
      expect((await sharp(bytes).metadata()).format).toBe('png');
    }
    // Another account sees none of it.
    const stranger = await t.createAccount('stranger');
    expect((await t.request('GET', `/api/jobs/${jobId}`, { key: stranger.key })).status).toBe(404);
    expect((await fetch(items[0]!.download_url as string, { headers: { 'X-API-Key': stranger.key } })).status).toBe(404);
    expect((await t.request('GET', '/api/media/list', { key: stranger.key })).body.total).toBe(0);
    const zip = await fetch(`${t.url}/download/${jobId}`, { headers: { 'X-API-Key': key } });
    expect([zip.status, zip.headers.get('content-type')]).toEqual([200, 'application/zip']);
    await zip.arrayBuffer();

    // The caller's media library has them, tagged.
    const library = await t.request('GET', '/api/media/list', { key });
    expect(library.body.total).toBe(2);
    for (const media of library.body.items) expect(media.tags).toEqual(expect.arrayContaining(['generated', 'cinematic']));

    // The webhook fired for the finished job.
    const [hook] = await receiver.waitFor(1, '/generation-hook');
    expect(JSON.stringify(hook!.json)).toContain(String(jobId));
    expect(hook!.body).toMatch(/completed/);

    // Charged for the two delivered images; no vendor key in the job's stored input.
    expect(await t.app.services.ledger.wallet(id, 'credits')).toMatchObject({ balance: 8 * 10_000, reserved: 0 });
    const row = await t.app.services.db.prisma.job.findUniqueOrThrow({ where: { id: jobId } });
    expect(row.kind).toBe('generate');
    expect(row.input).toEqual({ description: 'a clean photo of a harbour', style: 'cinematic', styleName: 'Cinematic', count: 2, orientation: 'landscape' });
    expect(JSON.stringify(row)).not.toContain('sk-must-not-be-kept');
  });

  it('refuses at once (402) when the account cannot pay for every image, and 400 without a description', async () => {
    const { key } = await account(1);
    const poor = await t.request('POST', '/api/replace/generate', { key, body: { description: 'x', count: 2 } });
    expect(poor.status).toBe(402);
    expect(poor.body.error).toMatch(/this job needs 2 credits/);
    const missing = await t.request('POST', '/api/replace/generate', { key, body: { count: 1 } });
    expect([missing.status, missing.body.error]).toEqual([400, 'description is required: what the replacement image should show']);
    expect(providerCalls()).toBe(0);
  });

  it('fails the job, charging nothing and keeping no files, when every provider fails', async () => {
    const { key, id } = await account();
    fake.behaviour.pollinations = fake.behaviour.bfl = fake.behaviour.openai = 'status500';
    const started = await t.request('POST', '/api/replace/generate', { key, body: { description: 'doomed', count: 1 } });
    const done = await waitForJob(t, key, started.body.job_id);
    expect(done.body.status).toBe('failed');
    expect(await t.app.services.ledger.wallet(id, 'credits')).toMatchObject({ balance: 10 * 10_000, reserved: 0 });
    expect((await t.request('GET', '/api/media/list', { key })).body.total).toBe(0);
  });

  it('is idempotent by job id: a rerun after an interruption calls no provider, charges once and stores once', async () => {
    const { key, id } = await account();
    const started = await t.request('POST', '/api/replace/generate', { key, body: { description: 'a quiet library', count: 2 } });
    const jobId = started.body.job_id as number;
    expect((await waitForJob(t, key, jobId)).body.status).toBe('completed');
    const { services } = t.app;
    const handler = createGenerationHandler({
      db: services.db,
      blobs: services.blobs,
      chain: services.generation.chain,
      billing: new GenerationBilling(services.credits, services.ledger, 1, 60_000),
      media: services.media,
      logger: services.logger,
    });
    const context = { signal: new AbortController().signal, progress: () => {} };
    const before = { calls: providerCalls(), wallet: await services.ledger.wallet(id, 'credits'), media: (await t.request('GET', '/api/media/list', { key })).body.total as number };
    expect(before.wallet.balance).toBe(8 * 10_000);

    // Run again as it stands (a second message for a finished job).
    const job = await services.db.prisma.job.findUniqueOrThrow({ where: { id: jobId } });
    expect(await handler({ ...job, attempts: 2 }, context)).toEqual({ assetsFound: 2, assetsStored: 2 });

    // Cut short after the uploads, before the rows and the charge committed: the rows are gone, the files remain.
    await services.db.prisma.asset.deleteMany({ where: { jobId } });
    expect(await handler({ ...job, attempts: 2 }, context)).toEqual({ assetsFound: 2, assetsStored: 2 });

    expect(providerCalls(), 'no provider called again').toBe(before.calls);
    expect(await services.ledger.wallet(id, 'credits')).toMatchObject({ balance: before.wallet.balance, reserved: 0 });
    expect((await t.request('GET', '/api/media/list', { key })).body.total).toBe(before.media);
    expect(await services.db.prisma.asset.count({ where: { jobId } })).toBe(2);
    const charges = (await services.credits.summary({ accountId: id }, {})).entries.filter((e) => e.action === 'generate');
    expect(charges.map((e) => e.transferId).sort()).toEqual([`generate:job:${jobId}:1`, `generate:job:${jobId}:2`]);
  });
});
