// Linking a Telegram account and the key commands, driven by long polling against the fake Bot API:
// POST /api/platform/bot-link (shape, master key only, code kept as a digest, 503 without the bot),
// /start with a good, reused, expired, unknown and raced code, the throttle on guesses, unlinked users
// told how to link for every account command, a suspended account refused, /unlink, /help and the
// command list, /api_key refused in groups and its rotation in private, and the token never logged.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createLogger } from '../../src/platform/logger.js';
import { BotLinksService, HELP, NOT_LINKED } from '../../src/modules/bot/index.js';
import { startFakeBotApi, testTelegramConfig, TEST_BOT_TOKEN, TEST_BOT_USERNAME, type FakeBotApi } from '../fixtures/telegram/fake-bot-api.js';
import { GROUP, buttonPress, privateChat, textMessage, type Chat } from './driver.js';
import { FAST_THROTTLE } from './bot-app.js';

let fake: FakeBotApi;
let t: TestApp;
const logLines: string[] = [];
let nextUser = 7_000_000;

beforeAll(async () => {
  fake = await startFakeBotApi();
  t = await startTestApp(
    { telegram: testTelegramConfig({ mode: 'polling', apiRoot: fake.url }), publicBaseUrl: 'https://images.example' },
    { telegram: { throttle: FAST_THROTTLE, pollTimeoutSeconds: 1 }, logger: createLogger('debug', { write: (line: string) => void logLines.push(line) }) },
  );
});
afterAll(async () => {
  await t?.stop();
  await fake?.close();
});

/** Sends a message as a Telegram user and waits for the bot's next reply in that chat. */
async function say(userId: number, text: string, chat: Chat = privateChat(userId)) {
  const since = fake.calls.length;
  fake.push(textMessage(userId, text, chat));
  const reply = await fake.waitFor((c) => c.method === 'sendMessage' && Number(c.payload.chat_id) === chat.id, { since });
  return String(reply.payload.text);
}

async function linkCode(key: string) {
  const res = await t.request('POST', '/api/platform/bot-link', { key });
  expect(res.status, res.text).toBe(201);
  return res.body.code as string;
}

/** A new account and a Telegram user linked to it. */
async function linked(tier?: string) {
  const account = await t.createAccount('bot', tier);
  const userId = ++nextUser;
  expect(await say(userId, `/start ${await linkCode(account.key)}`)).toMatch(new RegExp(`^Linked to @${account.handle}`));
  return { ...account, userId };
}

describe('POST /api/platform/bot-link', () => {
  it('answers a one-time code, the command to send, the deep link and the expiry; only a digest is kept', async () => {
    const { key, id } = await t.createAccount('bot');
    const before = Date.now();
    const res = await t.request('POST', '/api/platform/bot-link', { key });
    expect(res.status, res.text).toBe(201);
    expect(Object.keys(res.body)).toEqual(['success', 'code', 'command', 'link', 'expires_at', 'expires_in_seconds']);
    const code = res.body.code as string;
    expect(code).toMatch(/^[A-Z2-9]{12}$/);
    expect(res.body).toMatchObject({ success: true, command: `/start ${code}`, link: `https://t.me/${TEST_BOT_USERNAME}?start=${code}`, expires_in_seconds: 600 });
    const expires = Date.parse(res.body.expires_at);
    expect(expires - before).toBeGreaterThanOrEqual(600_000 - 1_000);
    expect(expires - before).toBeLessThanOrEqual(600_000 + 5_000);
    const rows = await t.app.services.db.prisma.botLinkCode.findMany({ where: { accountId: id } });
    expect(rows).toHaveLength(1);
    expect(rows[0]!.codeHash).toBe(createHash('sha256').update(code).digest('hex'));
    expect(JSON.stringify(rows)).not.toContain(code);
  });

  it('needs the master key: none is 401, a sub-key 403; at most 10 unused codes (409)', async () => {
    const { key } = await t.createAccount('bot');
    expect((await t.request('POST', '/api/platform/bot-link')).status).toBe(401);
    const sub = await t.request('POST', '/api/platform/sub-keys', { key, body: { scopes: 'scrape,generate,search,media' } });
    const refused = await t.request('POST', '/api/platform/bot-link', { key: sub.body.sub_key });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatch(/master key/);
    for (let i = 0; i < 10; i++) await linkCode(key);
    const full = await t.request('POST', '/api/platform/bot-link', { key });
    expect(full.status).toBe(409);
    expect(full.body.error).toMatch(/10 unused link codes/);
  });

  it('answers 503 where the bot is not configured', async () => {
    const off = new BotLinksService(t.app.services.db, t.app.services.quota, undefined);
    const actor = await t.app.services.auth.authenticate(t.ownerKey);
    await expect(off.createCode(actor)).rejects.toMatchObject({ status: 503, message: expect.stringMatching(/TELEGRAM_BOT_TOKEN/) });
  });
});

describe('/start <code>', () => {
  it('links with a good code, and refuses the same code afterwards, an expired one and an unknown one', async () => {
    const account = await t.createAccount('bot');
    const code = await linkCode(account.key);
    const alice = ++nextUser;
    const mallory = ++nextUser;
    // Lower case and spaced out as a person may type it.
    expect(await say(alice, `/start ${code.toLowerCase().slice(0, 6)} ${code.toLowerCase().slice(6)}`)).toMatch(new RegExp(`^Linked to @${account.handle}`));
    expect(await say(alice, '/balance')).toMatch(/^Coins: 0\nCredits: 0$/);
    expect(await say(mallory, `/start ${code}`)).toMatch(/used already/);
    expect(await say(mallory, '/balance')).toBe(NOT_LINKED);

    const stale = await linkCode(account.key);
    await t.app.services.db.prisma.botLinkCode.updateMany({ where: { accountId: account.id, usedAt: null }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect(await say(mallory, `/start ${stale}`)).toMatch(/expired/);
    expect(await say(mallory, '/start ABCDEFGHJKLM')).toMatch(/not known/);
    expect(await say(mallory, '/balance')).toBe(NOT_LINKED);
  });

  it('links exactly one of two users racing with one code', async () => {
    const account = await t.createAccount('bot');
    const code = await linkCode(account.key);
    const [a, b] = [++nextUser, ++nextUser];
    const answers = await Promise.all([say(a, `/start ${code}`), say(b, `/start ${code}`)]);
    expect(answers.filter((text) => text.startsWith('Linked to')).length).toBe(1);
    expect(answers.filter((text) => /used already/.test(text)).length).toBe(1);
  });

  it('stops guessing after 10 tries an hour per Telegram user', async () => {
    const guesser = ++nextUser;
    for (let i = 0; i < 10; i++) expect(await say(guesser, `/start WRONGCODE${i}`)).toMatch(/not known/);
    expect(await say(guesser, '/start WRONGCODE10')).toMatch(/Too many link attempts: try again in \d+ s/);
  });

  it('welcomes without a code, with how to link and the commands', async () => {
    const stranger = ++nextUser;
    const text = await say(stranger, '/start');
    expect(text).toContain(NOT_LINKED);
    expect(text).toContain(HELP);
  });
});

describe('unlinked users, suspended accounts, /unlink and /help', () => {
  it('tells an unlinked user how to link for every command that works for an account', async () => {
    const stranger = ++nextUser;
    for (const command of ['/connect', '/scrape https://example.org', '/generate a cat', '/search cats', '/verify', '/wiki tower', '/policy 1 open', '/proposals 1', '/resolve 1 approve', '/library', '/balance', '/api_key']) {
      expect(await say(stranger, command), command).toBe(NOT_LINKED);
    }
  });

  it('refuses a suspended account with the 403 message, and serves it again once active', async () => {
    const user = await linked();
    await t.request('POST', `/api/admin/accounts/${user.handle}/suspend`, { admin: true });
    expect(await say(user.userId, '/balance')).toBe(`Refused: account @${user.handle} is suspended; contact the service administrator`);
    await t.request('POST', `/api/admin/accounts/${user.handle}/activate`, { admin: true });
    expect(await say(user.userId, '/balance')).toMatch(/^Coins: /);
  });

  it('/unlink ends the link', async () => {
    const user = await linked();
    expect(await say(user.userId, '/unlink')).toMatch(/^Unlinked/);
    expect(await say(user.userId, '/balance')).toBe(NOT_LINKED);
    expect(await say(user.userId, '/unlink')).toMatch(/was not linked/);
  });

  it('/help lists every command of the specification, and the command list was given to Telegram', async () => {
    const text = await say(++nextUser, '/help');
    for (const command of ['/start', '/connect', '/scrape', '/generate', '/search', '/verify', '/wiki', '/policy', '/proposals', '/resolve', '/library', '/balance', '/api_key', '/help']) {
      expect(text).toContain(`${command} `);
    }
    const listed = fake.sent('setMyCommands')[0]!.payload.commands as Array<{ command: string }>;
    expect(listed.map((c) => c.command)).toEqual(['start', 'connect', 'scrape', 'generate', 'search', 'verify', 'wiki', 'policy', 'proposals', 'resolve', 'library', 'balance', 'api_key', 'unlink', 'help']);
  });
});

describe('/api_key', () => {
  it('refuses in a group before reading anything, linked or not', async () => {
    const user = await linked();
    expect(await say(user.userId, '/api_key', GROUP)).toMatch(/private chat with me only/);
    expect(await say(user.userId, '/api_key rotate', GROUP)).toMatch(/private chat with me only/);
    expect(await say(++nextUser, '/api_key', GROUP)).toMatch(/private chat with me only/);
  });

  it('shows the master key prefix in private (never the key), and rotates after a confirmation', async () => {
    const user = await linked();
    const view = await say(user.userId, '/api_key');
    expect(view).toContain(`${user.key.slice(0, 12)}...`);
    expect(view).not.toContain(user.key);

    const since = fake.calls.length;
    expect(await say(user.userId, '/api_key rotate')).toMatch(/stops working at once/);
    const question = fake.calls.slice(since).find((c) => c.method === 'sendMessage')!;
    expect((question.payload.reply_markup as { inline_keyboard: Array<Array<{ callback_data: string }>> }).inline_keyboard[0]!.map((b) => b.callback_data)).toEqual(['ak:rotate', 'ak:cancel']);
    // Nothing changed yet; a cancel keeps it.
    fake.push(buttonPress(user.userId, 'ak:cancel'));
    await fake.waitFor((c) => c.method === 'answerCallbackQuery' && c.payload.text === 'Kept your key.', { since });
    expect((await t.request('GET', '/api/live-editor/status', { key: user.key })).status).toBe(200);

    // A press in a group is refused.
    const groupSince = fake.calls.length;
    fake.push(buttonPress(user.userId, 'ak:rotate', GROUP));
    await fake.waitFor((c) => c.method === 'answerCallbackQuery' && /never shown in groups/.test(String(c.payload.text)), { since: groupSince });
    expect((await t.request('GET', '/api/live-editor/status', { key: user.key })).status).toBe(200);

    const rotateSince = fake.calls.length;
    fake.push(buttonPress(user.userId, 'ak:rotate'));
    const shown = await fake.waitFor((c) => c.method === 'sendMessage' && Number(c.payload.chat_id) === user.userId, { since: rotateSince });
    expect(shown.payload.protect_content).toBe(true);
    const newKey = /(mk_[A-Za-z0-9_-]{43})/.exec(String(shown.payload.text))![1]!;
    expect((await t.request('GET', '/api/live-editor/status', { key: user.key })).status).toBe(401);
    expect((await t.request('GET', '/api/live-editor/status', { key: newKey })).status).toBe(200);
    // The bot keeps acting for the account with the new key.
    expect(await say(user.userId, '/api_key')).toContain(`${newKey.slice(0, 12)}...`);
  });
});

it('never logs the bot token or a key it showed', () => {
  expect(logLines.length).toBeGreaterThan(0);
  const all = logLines.join('\n');
  expect(all).not.toContain(TEST_BOT_TOKEN);
  expect(all).not.toMatch(/mk_[A-Za-z0-9_-]{43}/);
});
