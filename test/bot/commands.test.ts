// The account commands end to end through the fake Bot API (long polling): each command's happy path
// and its refusals, acting as the linked account through the same services as the REST routes:
// /generate sends photos and charges credits (402 without them), the daily quota (20/day on the
// standard tier; 3 on the tests' tiny one) counts bot commands, /search by text and by a photo
// (getFile, reverse search), /verify with confirm and reject buttons paying the vote, /wiki from a
// photo's caption, /policy, /proposals and /resolve (the owner only; arguments named), /library,
// /balance and /connect.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { LOCAL_FETCH, startTestApp, type TestApp } from '../helpers/app.js';
import { form, scene } from '../helpers/images.js';
import { fakeGenerationConfig, startFakeGenerationProviders, type FakeGenerationProviders } from '../fixtures/generation/fake-providers.js';
import { startFakeBotApi, testTelegramConfig, type FakeBotApi, type RecordedCall } from '../fixtures/telegram/fake-bot-api.js';
import { buttonPress, photoMessage, privateChat, textMessage } from './driver.js';
import { FAST_THROTTLE } from './bot-app.js';

let fake: FakeBotApi;
let generators: FakeGenerationProviders;
let t: TestApp;
let nextUser = 8_000_000;
let seed = 52_000;

beforeAll(async () => {
  [fake, generators] = await Promise.all([startFakeBotApi(), startFakeGenerationProviders()]);
  const defaults = loadConfig({});
  t = await startTestApp(
    {
      fetch: LOCAL_FETCH,
      telegram: testTelegramConfig({ mode: 'polling', apiRoot: fake.url }),
      publicBaseUrl: 'https://images.example',
      generation: fakeGenerationConfig(generators, { GENERATE_BREAKER_FAILURES: '1000' }),
      vision: { ...defaults.vision, local: { ...defaults.vision.local, enabled: false } },
    },
    { telegram: { throttle: FAST_THROTTLE, pollTimeoutSeconds: 1 } },
  );
});
afterAll(async () => {
  await t?.stop();
  await fake?.close();
  await generators?.close();
});

/** Sends an update from a Telegram user and waits for the bot's first call of `method` to that chat. */
async function send(update: Record<string, unknown>, chatId: number, method = 'sendMessage'): Promise<RecordedCall> {
  const since = fake.calls.length;
  fake.push(update);
  return fake.waitFor((c) => c.method === method && Number(c.payload.chat_id) === chatId, { since });
}
const say = async (userId: number, text: string) => String((await send(textMessage(userId, text), userId)).payload.text);

async function linked(tier?: string) {
  const account = await t.createAccount('botcmd', tier);
  const code = (await t.request('POST', '/api/platform/bot-link', { key: account.key })).body.code as string;
  const userId = ++nextUser;
  expect(await say(userId, `/start ${code}`)).toMatch(/^Linked to/);
  return { ...account, userId };
}

const wallet = (id: number, currency: 'coins' | 'credits') => t.app.services.ledger.wallet(id, currency);

describe('/generate', () => {
  it('sends the images as photos (a media group) and charges the account one credit each', async () => {
    const user = await linked();
    await t.request('POST', `/api/admin/accounts/${user.handle}/credits`, { admin: true, body: { amount: 10 } });
    const group = await send(textMessage(user.userId, '/generate a lighthouse at dawn'), user.userId, 'sendMediaGroup');
    const media = group.payload.media as Array<{ type: string; media: string; caption?: string }>;
    expect(media).toHaveLength(2);
    expect(media.every((m) => m.type === 'photo' && m.media.startsWith('attach://'))).toBe(true);
    expect(media[0]!.caption).toMatch(/^a lighthouse at dawn\n2 image\(s\) by pollinations; 2 credit\(s\) charged$/);
    // The files themselves went up in the multipart body.
    const attached = Object.values(group.payload).filter((v): v is { bytes: Buffer } => typeof v === 'object' && v !== null && 'bytes' in v);
    expect(attached).toHaveLength(2);
    expect(attached[0]!.bytes.subarray(1, 4).toString()).toBe('PNG');
    expect(await wallet(user.id, 'credits')).toMatchObject({ balance: 8 * 10_000, reserved: 0 });
  });

  it('refuses without credits (402 message) and without a prompt, calling no provider', async () => {
    const user = await linked();
    const before = generators.requests.pollinations.length;
    expect(await say(user.userId, '/generate a lighthouse')).toMatch(/^Refused: .*credit/i);
    expect(await say(user.userId, '/generate')).toMatch(/^prompt: expected what to draw/);
    expect(generators.requests.pollinations.length).toBe(before);
  });
});

it('counts bot commands against the account quota (a tier of 3 a day: the 4th request is refused)', async () => {
  // The link code's request was the first of the day; /start itself is free.
  const user = await linked('tiny');
  for (let i = 0; i < 2; i++) expect(await say(user.userId, '/balance')).toMatch(/^Coins: /);
  expect(await say(user.userId, '/balance')).toMatch(/^Refused: daily limit \(tiny tier\) of 3 requests exceeded; retry in \d+ s$/);
  // The same counter as the HTTP API.
  expect((await t.request('GET', '/api/live-editor/status', { key: user.key })).status).toBe(429);
});

describe('/search', () => {
  it('searches by text and by a photo (downloaded with getFile), finding the account library', async () => {
    const user = await linked();
    const image = await scene(++seed);
    const upload = await t.request('POST', '/api/media/upload', { key: user.key, form: form({ body: image, name: 'harbour.jpg', type: 'image/jpeg' }, { tags: '["harbour"]' }) });
    expect(upload.status, upload.text).toBe(201);

    const byText = await say(user.userId, '/search harbour');
    expect(byText).toMatch(/^Search "harbour": \d+ found/);
    expect(byText).toContain('my_private_library');

    const fileId = fake.addFile(image);
    const since = fake.calls.length;
    const byPhoto = await send(photoMessage(user.userId, fileId, image.length, '/search'), user.userId);
    expect(fake.calls.slice(since).some((c) => c.method === 'getFile' && c.payload.file_id === fileId)).toBe(true);
    expect(String(byPhoto.payload.text)).toMatch(/^Reverse search/);
    expect(String(byPhoto.payload.text)).toContain('my_private_library');
  });

  it('asks for words or a photo, and refuses a photo Telegram will not hand over', async () => {
    const user = await linked();
    expect(await say(user.userId, '/search')).toMatch(/^query: expected words to search for, or a photo/);
    expect(String((await send(photoMessage(user.userId, 'no-such-file', 1000, '/search'), user.userId)).payload.text)).toBe('Refused: photo: Telegram did not hand over the file; send it again');
    expect(String((await send(photoMessage(user.userId, 'huge', 500_000_000, '/search'), user.userId)).payload.text)).toMatch(/^Refused: photo: larger than/);
  });
});

/** An approved subject (made by another account) with a pending photo by a third. */
async function pendingWikiPhoto() {
  const creator = await t.createAccount('botwiki');
  const made = await t.request('POST', '/api/wiki/subjects', { key: creator.key, body: { name: `Bot Tower ${++seed}`, category: 'landmark' } });
  await t.request('POST', `/api/admin/wiki/subjects/${made.body.slug}/approve`, { admin: true });
  const photographer = await t.createAccount('botphoto');
  const photo = await t.request('POST', `/api/wiki/subjects/${made.body.slug}/contribute`, { key: photographer.key, form: form({ body: await scene(++seed), name: 'w.jpg', type: 'image/jpeg' }) });
  expect(photo.status, photo.text).toBe(201);
  return { slug: made.body.slug as string, photoId: photo.body.photo.id as number };
}

describe('/verify and /wiki', () => {
  it('shows pending photos with confirm and reject buttons; a press votes and pays the vote like the route', async () => {
    const { photoId } = await pendingWikiPhoto();
    const voter = await linked();
    const shown = await send(textMessage(voter.userId, '/verify'), voter.userId, 'sendPhoto');
    expect(String(shown.payload.caption)).toMatch(new RegExp(`^Wiki photo ${photoId}: is this Bot Tower`));
    const buttons = (shown.payload.reply_markup as { inline_keyboard: Array<Array<{ text: string; callback_data: string }>> }).inline_keyboard[0]!;
    expect(buttons.map((b) => [b.text, b.callback_data])).toEqual([
      ['Confirm', `wv:${photoId}:c`],
      ['Reject', `wv:${photoId}:r`],
    ]);

    const since = fake.calls.length;
    fake.push(buttonPress(voter.userId, `wv:${photoId}:c`));
    const answered = await fake.waitFor((c) => c.method === 'answerCallbackQuery', { since });
    expect(answered.payload.text).toMatch(/^Vote counted: confirm\. \+0\.5 coins/);
    expect(await wallet(voter.id, 'coins')).toMatchObject({ balance: 5_000 });
    expect(await t.app.services.db.prisma.wikiVote.count({ where: { mediaId: photoId, accountId: voter.id, vote: 'confirm' } })).toBe(1);

    // A second press is the route's 409, shown as an alert; nothing paid twice.
    const again = fake.calls.length;
    fake.push(buttonPress(voter.userId, `wv:${photoId}:r`));
    const refused = await fake.waitFor((c) => c.method === 'answerCallbackQuery', { since: again });
    expect(refused.payload).toMatchObject({ show_alert: true, text: `you voted on wiki photo ${photoId} already` });
    expect(await wallet(voter.id, 'coins')).toMatchObject({ balance: 5_000 });

    // Nothing left for this voter from that photo; a forged button data is ignored politely.
    const bad = fake.calls.length;
    fake.push(buttonPress(voter.userId, 'wv:abc:c'));
    expect((await fake.waitFor((c) => c.method === 'answerCallbackQuery', { since: bad })).payload.text).toMatch(/no longer valid/);
  });

  it('contributes a photo sent with the caption /wiki <slug> <type>, and explains without a photo', async () => {
    const { slug } = await pendingWikiPhoto();
    const user = await linked();
    const image = await scene(++seed);
    const reply = await send(photoMessage(user.userId, fake.addFile(image), image.length, `/wiki ${slug} exterior`), user.userId);
    expect(String(reply.payload.text)).toMatch(new RegExp(`^Thanks: wiki photo \\d+ of ${slug} \\(exterior\\) waits for community votes`));
    const made = await t.app.services.db.prisma.wikiMedia.findMany({ where: { accountId: user.id } });
    expect(made).toHaveLength(1);
    expect(made[0]).toMatchObject({ photoType: 'exterior', status: 'pending' });

    expect(await say(user.userId, `/wiki ${slug}`)).toMatch(/^Send a photo with the caption \/wiki <slug>/);
    const unknown = await send(photoMessage(user.userId, fake.addFile(image), image.length, '/wiki no-such-subject-here'), user.userId);
    expect(String(unknown.payload.text)).toMatch(/^Refused: no wiki subject no-such-subject-here/);
  });
});

describe('/policy, /proposals and /resolve', () => {
  it('lets the owner set the policy, list proposals and merge one (paying the proposer); others are refused', async () => {
    const owner = await linked();
    const item = await t.request('POST', '/api/community/contribute', { key: owner.key, form: form({ body: await scene(++seed), name: 'c.jpg', type: 'image/jpeg' }) });
    expect(item.status, item.text).toBe(201);
    const itemId = item.body.id as number;

    expect(await say(owner.userId, `/policy ${itemId} restricted`)).toBe(`Image ${itemId}: intel policy is now restricted.`);
    const proposer = await t.createAccount('botproposer');
    const posted = await t.request('POST', `/api/wiki/image/${itemId}/intel`, { key: proposer.key, body: { text: 'better caption', changes: { caption: 'Harbour at dusk' } } });
    expect(posted.status, posted.text).toBe(201);
    const proposalId = posted.body.id as number;

    const listed = await say(owner.userId, `/proposals ${itemId}`);
    expect(listed).toContain(`Proposal ${proposalId}: better caption {"caption":"Harbour at dusk"}`);

    const stranger = await linked();
    expect(await say(stranger.userId, `/policy ${itemId} open`)).toMatch(/^Refused: policy: only the contributor/);
    expect(await say(stranger.userId, `/resolve ${proposalId} approve`)).toMatch(/^Refused: .*not found|^Refused: no /i);

    expect(await say(owner.userId, `/resolve ${proposalId} approve`)).toBe(`Proposal ${proposalId} merged on image ${itemId}; the proposer earned 0.5 coins.`);
    expect(await say(owner.userId, `/resolve ${proposalId} reject`)).toMatch(/^Refused: intel proposal \d+ was already merged/);
    expect(await say(owner.userId, `/proposals ${itemId}`)).toBe(`Image ${itemId} has no pending proposals.`);
  });

  it('names the argument that is wrong', async () => {
    const user = await linked();
    expect(await say(user.userId, '/policy abc open')).toMatch(/^image_id: expected the integer id/);
    expect(await say(user.userId, '/policy 12 secret')).toMatch(/^policy: expected one of open, restricted, locked/);
    expect(await say(user.userId, '/policy 99999999999 open')).toMatch(/^image_id:/);
    expect(await say(user.userId, '/proposals')).toMatch(/^image_id:/);
    expect(await say(user.userId, '/resolve 5 maybe')).toMatch(/^action: expected approve or reject/);
    expect(await say(user.userId, '/resolve x approve')).toMatch(/^proposal_id:/);
    expect(await say(user.userId, `/policy 2147483647 open`)).toMatch(/^Refused: /);
  });
});

describe('/library, /balance and /connect', () => {
  it('lists the recent media items, shows coins and credits, and links the partner account', async () => {
    const user = await linked();
    expect(await say(user.userId, '/library')).toBe('Your media library is empty.');
    const upload = await t.request('POST', '/api/media/upload', { key: user.key, form: form({ body: await scene(++seed, 320, 240), name: 'pier.jpg', type: 'image/jpeg' }) });
    expect(await say(user.userId, '/library')).toBe(`Your media library: 1 item(s), newest first\n${upload.body.media_id}. pier.jpg (image, 320x240)`);

    await t.request('POST', `/api/admin/accounts/${user.handle}/coins`, { admin: true, body: { amount: 2.5 } });
    await t.request('POST', `/api/admin/accounts/${user.handle}/credits`, { admin: true, body: { amount: 7 } });
    expect(await say(user.userId, '/balance')).toBe('Coins: 2.5\nCredits: 7');
    // Coins escrowed for a bounty and credits held by an analysis in progress: the spendable amount, the held one beside it.
    expect((await t.request('POST', '/api/economy/bounties', { key: user.key, body: { subject_slug: 'pier', reward_per_photo: 0.5, photos_needed: 3 } })).status).toBe(201);
    const hold = await t.app.services.credits.hold(user.id, 2, { action: 'vision' });
    expect(await say(user.userId, '/balance')).toBe('Coins: 1 spendable, 1.5 held\nCredits: 5 spendable, 2 held');
    await t.app.services.credits.release(hold);
    expect(await say(user.userId, '/balance')).toBe('Coins: 1 spendable, 1.5 held\nCredits: 7');

    expect(await say(user.userId, '/connect')).toMatch(/^Credit partner: local\. Linked account: none\./);
    expect(await say(user.userId, '/connect partner-account-42')).toBe('Linked your account at the credit partner (local): partner-account-42');
    const rate = await t.request('GET', '/api/economy/bridge/rate', { key: user.key });
    expect(rate.body.partner_account).toBe('partner-account-42');
    expect(await say(user.userId, `/connect ${'\u0007bell'}`)).toMatch(/^Refused: partner_account: expected no control characters/);
  });

  it('answers a photo without a command with a hint in private chats', async () => {
    const user = await linked();
    const image = await scene(++seed, 64, 64);
    const since = fake.calls.length;
    fake.push({ message: { ...photoMessage(user.userId, fake.addFile(image), image.length, 'hello').message, caption_entities: [] } });
    const hint = await fake.waitFor((c) => c.method === 'sendMessage' && Number(c.payload.chat_id) === privateChat(user.userId).id, { since });
    expect(hint.payload.text).toMatch(/caption \/search/);
  });
});
