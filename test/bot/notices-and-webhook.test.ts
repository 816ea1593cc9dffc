// /scrape replies when the job ends (its count and the ZIP link under PUBLIC_BASE_URL), also for a
// job finished by another process (no event here: the durable notice row and the poll find it), a
// notice Telegram refused once is sent again; the auto-retry plugin honours a 429's retry_after; and
// the webhook mode: setWebhook with the secret at start, POST /telegram/webhook refused without the
// right X-Telegram-Bot-Api-Secret-Token, a body that is no Update refused, a good update answered.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_SCRAPES, startTestApp, type TestApp } from '../helpers/app.js';
import { startFixtureSite, type FixtureSite } from '../fixtures/site.js';
import { startFakeBotApi, testTelegramConfig, TEST_WEBHOOK_SECRET, type FakeBotApi } from '../fixtures/telegram/fake-bot-api.js';
import { HELP } from '../../src/modules/bot/index.js';
import { textMessage } from './driver.js';
import { until } from '../helpers/until.js';
import { FAST_THROTTLE } from './bot-app.js';

let fake: FakeBotApi;
let hookFake: FakeBotApi;
let site: FixtureSite;
let t: TestApp;
let hooked: TestApp;
let nextUser = 9_000_000;

beforeAll(async () => {
  [fake, hookFake, site] = await Promise.all([startFakeBotApi(), startFakeBotApi(), startFixtureSite()]);
  [t, hooked] = await Promise.all([
    startTestApp(
      { ...LOCAL_SCRAPES, scrape: { ...LOCAL_SCRAPES.scrape!, isolation: 'inline' }, telegram: testTelegramConfig({ mode: 'polling', apiRoot: fake.url }), publicBaseUrl: 'https://images.example' },
      { telegram: { throttle: FAST_THROTTLE, pollTimeoutSeconds: 1 } },
    ),
    startTestApp(
      { runWorkers: false, telegram: testTelegramConfig({ mode: 'webhook', webhookSecret: TEST_WEBHOOK_SECRET, apiRoot: hookFake.url }), publicBaseUrl: 'https://hooks.example' },
      { telegram: { throttle: FAST_THROTTLE } },
    ),
  ]);
});
afterAll(async () => {
  await Promise.all([t?.stop(), hooked?.stop()]);
  await Promise.all([fake?.close(), hookFake?.close(), site?.close()]);
});

async function say(userId: number, text: string) {
  const since = fake.calls.length;
  fake.push(textMessage(userId, text));
  return String((await fake.waitFor((c) => c.method === 'sendMessage' && Number(c.payload.chat_id) === userId, { since })).payload.text);
}

async function linked() {
  const account = await t.createAccount('botjob');
  const code = (await t.request('POST', '/api/platform/bot-link', { key: account.key })).body.code as string;
  const userId = ++nextUser;
  expect(await say(userId, `/start ${code}`)).toMatch(/^Linked to/);
  return { ...account, userId };
}

describe('/scrape', () => {
  it('starts the job and replies when it ends, with its file count and the ZIP link', async () => {
    const user = await linked();
    const since = fake.calls.length;
    const started = await say(user.userId, `/scrape ${site.url}/`);
    const jobId = Number(/^Scrape job (\d+) started/.exec(started)![1]);
    const done = await fake.waitFor((c) => c.method === 'sendMessage' && /finished|failed/.test(String(c.payload.text)), { since, timeoutMs: 30_000 });
    const job = await t.app.services.jobs.get(jobId);
    expect(job).toMatchObject({ accountId: user.id, state: 'completed' });
    expect(job!.assetsStored).toBeGreaterThan(0);
    expect(done.payload.text).toBe(
      `Scrape job ${jobId} finished: ${job!.assetsStored} file(s).\nZIP: https://images.example/download/${jobId} (send your API key in the X-API-Key header)`,
    );
    // The link's path is the ZIP route (here on the test server's own address).
    const zip = await fetch(`${t.url}/download/${jobId}`, { headers: { 'X-API-Key': user.key } });
    expect(zip.status).toBe(200);
    expect(zip.headers.get('content-type')).toBe('application/zip');
    await zip.arrayBuffer();
    // Told once.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(fake.calls.slice(since).filter((c) => /^Scrape job \d+ finished/.test(String(c.payload.text)))).toHaveLength(1);
  });

  it('refuses a URL the crawler would refuse, and asks for one', async () => {
    const user = await linked();
    expect(await say(user.userId, '/scrape http://10.1.2.3/')).toMatch(/^Refused: url: refused/);
    expect(await say(user.userId, '/scrape')).toMatch(/^url: expected a page/);
    expect(await t.app.services.db.prisma.job.count({ where: { accountId: user.id } })).toBe(0);
  });

  it('tells the chat of a job another process finished (no event here: the notice row and the poll)', async () => {
    const user = await linked();
    const db = t.app.services.db.prisma;
    // A job row as a worker elsewhere leaves it; nothing is published in this process.
    const done = await db.job.create({ data: { accountId: user.id, kind: 'scrape', input: {}, state: 'completed', assetsStored: 3, finishedAt: new Date() } });
    const failed = await db.job.create({ data: { accountId: user.id, kind: 'scrape', input: {}, state: 'failed', error: 'robots.txt disallows it', finishedAt: new Date() } });
    const since = fake.calls.length;
    await t.app.services.botNotices.record(done.id, user.userId, user.id);
    await t.app.services.botNotices.record(failed.id, user.userId, user.id);
    await fake.waitFor((c) => c.payload.text === `Scrape job ${failed.id} failed: robots.txt disallows it`, { since });
    await fake.waitFor((c) => String(c.payload.text).startsWith(`Scrape job ${done.id} finished: 3 file(s).`), { since });
  });

  it('sends a notice again after Telegram refused it once', async () => {
    const user = await linked();
    const job = await t.app.services.db.prisma.job.create({ data: { accountId: user.id, kind: 'scrape', input: {}, state: 'completed', assetsStored: 1, finishedAt: new Date() } });
    fake.failNext('sendMessage', { error_code: 400, description: 'Bad Request: chat not found' });
    const since = fake.calls.length;
    await t.app.services.botNotices.record(job.id, user.userId, user.id);
    const tries = () => fake.calls.slice(since).filter((c) => String(c.payload.text).startsWith(`Scrape job ${job.id} finished`));
    await until(() => tries().length === 2, 'the notice sent a second time');
    const row = await t.app.services.db.prisma.botNotice.findFirstOrThrow({ where: { jobId: job.id } });
    expect(row.attempts).toBe(2);
    expect(row.sentAt).not.toBeNull();
  });
});

it('waits out a 429 retry_after and sends again (auto-retry)', async () => {
  const userId = ++nextUser;
  fake.failNext('sendMessage', { error_code: 429, description: 'Too Many Requests: retry after 1', parameters: { retry_after: 1 } });
  const since = fake.calls.length;
  fake.push(textMessage(userId, '/help'));
  const attempts = () => fake.calls.slice(since).filter((c) => c.method === 'sendMessage' && Number(c.payload.chat_id) === userId);
  await until(() => attempts().length === 2, 'the message sent again after the 429');
  const [refused, sent] = attempts();
  expect(sent!.payload.text).toBe(HELP);
  // Not before the retry_after Telegram asked for.
  expect(sent!.at - refused!.at).toBeGreaterThanOrEqual(950);
});

describe('webhook mode', () => {
  const post = (body: unknown, secret?: string) =>
    fetch(`${hooked.url}/telegram/webhook`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...(secret === undefined ? {} : { 'X-Telegram-Bot-Api-Secret-Token': secret }) },
      body: JSON.stringify(body),
    });

  it('registered the webhook with its secret at start, and never polls', () => {
    const registered = hookFake.sent('setWebhook');
    expect(registered).toHaveLength(1);
    expect(registered[0]!.payload).toMatchObject({ url: 'https://hooks.example/telegram/webhook', secret_token: TEST_WEBHOOK_SECRET });
    expect(hookFake.sent('getUpdates')).toHaveLength(0);
  });

  it('refuses a POST without the right secret header (401) and a body that is no Update (400)', async () => {
    const update = hookFake.next(textMessage(++nextUser, '/help'));
    const missing = await post(update);
    expect(missing.status).toBe(401);
    expect(await missing.json()).toEqual({ success: false, error: 'X-Telegram-Bot-Api-Secret-Token is missing or wrong' });
    expect((await post(update, 'wrong-secret-0123456789')).status).toBe(401);
    expect((await post(update, `${TEST_WEBHOOK_SECRET}x`)).status).toBe(401);
    expect((await post({ hello: 'world' }, TEST_WEBHOOK_SECRET)).status).toBe(400);
    expect((await post([1, 2], TEST_WEBHOOK_SECRET)).status).toBe(400);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(hookFake.sent('sendMessage')).toHaveLength(0);
  });

  it('answers a good update at once and replies through the Bot API', async () => {
    const userId = ++nextUser;
    const res = await post(hookFake.next(textMessage(userId, '/help')), TEST_WEBHOOK_SECRET);
    expect(res.status).toBe(200);
    const reply = await hookFake.waitFor((c) => c.method === 'sendMessage' && Number(c.payload.chat_id) === userId);
    expect(reply.payload.text).toBe(HELP);
  });

  it('is 404 where the bot polls instead', async () => {
    const res = await fetch(`${t.url}/telegram/webhook`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Telegram-Bot-Api-Secret-Token': TEST_WEBHOOK_SECRET }, body: '{"update_id":1}' });
    expect(res.status).toBe(404);
  });
});
