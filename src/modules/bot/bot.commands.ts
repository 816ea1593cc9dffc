// The chat commands (spec "Chat bot commands"). Each command that works for an account reads the
// Telegram user's link, builds the account's Actor (links.service.ts), checks the scope the matching
// REST route needs, counts one request against the account's quotas (the same counters as the HTTP
// API) and calls the same service the route calls, so credits, rewards and limits apply alike.
// Service errors (AppError) reach the user as their message; anything else is logged.
import { Composer, InlineKeyboard, InputFile, InputMediaBuilder, type Context } from 'grammy';
import { HELP, NOT_LINKED } from './bot.help.js';
import type { Services } from '../../platform/service-registry.js';
import { ANY_KEY, MASTER_KEY, SCOPE, requireKey, type KeyRule } from '../access/index.js';
import type { Actor } from '../accounts/index.js';
import { changesOf } from '../intel/index.js';
import type { Balance } from '../ledger/index.js';
import { argumentText, parseCallback, parsePolicy, parseProposals, parseResolve, parseWiki, voteButton } from './bot.input.js';

export type BotServices = Pick<
  Services,
  'logger' | 'quota' | 'scrape' | 'generation' | 'search' | 'wiki' | 'intel' | 'media' | 'ledger' | 'economy' | 'accounts' | 'blobs' | 'botLinks' | 'botNotices'
>;

export interface BotTools {
  /** The bytes of the photo a message carries, or of the one it replies to (getFile); null when there is none. */
  photoOf(ctx: Context): Promise<Buffer | null>;
  /** Looks for the end of this job sooner than the next poll. */
  watchJob(jobId: number): void;
  /** Base of the absolute links the bot sends (PUBLIC_BASE_URL). */
  baseUrl: string;
}

const RESULTS_SHOWN = 5;
const LIBRARY_SHOWN = 10;
const VERIFY_SHOWN = 5;
const PROPOSALS_SHOWN = 10;

const isPrivate = (ctx: Context) => ctx.chat?.type === 'private';

export function botCommands(deps: BotServices, tools: BotTools): Composer<Context> {
  const bot = new Composer<Context>();

  /** Runs `work` as the Telegram user's account (with the key rule of the matching REST route), or tells an unlinked user how to link. */
  const asAccount = async (ctx: Context, need: KeyRule, work: (actor: Actor) => Promise<unknown>) => {
    if (!ctx.from) return;
    const actor = await deps.botLinks.actorFor(ctx.from.id);
    if (!actor) {
      if (ctx.callbackQuery) await ctx.answerCallbackQuery({ text: 'Not linked: send /start <code> first', show_alert: true });
      else await ctx.reply(NOT_LINKED);
      return;
    }
    requireKey(actor, need);
    await deps.quota.consume(actor);
    await work(actor);
  };

  bot.command('start', async (ctx) => {
    if (!ctx.from) return;
    const code = argumentText(ctx.match);
    if (!code) {
      const actor = await deps.botLinks.actorFor(ctx.from.id).catch(() => null);
      await ctx.reply(actor ? `Linked to @${actor.handle}.\n\n${HELP}` : `Welcome to the image service bot.\n\n${NOT_LINKED}\n\n${HELP}`);
      return;
    }
    const result = await deps.botLinks.redeem(ctx.from.id, code);
    if (result.linked) {
      await ctx.reply(`Linked to @${result.handle}${result.replaced ? ' (your earlier link was replaced)' : ''}. I act for that account, with its quotas and credits.\n\n${HELP}`);
      return;
    }
    const why = {
      unknown: 'This code is not known: check it, or ask for a new one (POST /api/platform/bot-link).',
      used: 'This code was used already: each code links once. Ask for a new one (POST /api/platform/bot-link).',
      expired: 'This code has expired. Ask for a new one (POST /api/platform/bot-link).',
      throttled: `Too many link attempts: try again in ${result.retryAfterSeconds ?? 60} s.`,
    }[result.reason];
    await ctx.reply(why);
  });

  bot.command('help', (ctx) => ctx.reply(HELP));

  bot.command('unlink', async (ctx) => {
    if (!ctx.from) return;
    await ctx.reply((await deps.botLinks.unlink(ctx.from.id)) ? 'Unlinked: I no longer act for your account.' : 'This Telegram account was not linked.');
  });

  bot.command('connect', (ctx) =>
    asAccount(ctx, MASTER_KEY, async (actor) => {
      const partnerAccount = argumentText(ctx.match);
      if (!partnerAccount) {
        const rate = await deps.economy.bridge.rate(actor);
        await ctx.reply(
          `Credit partner: ${rate.partner}. Linked account: ${rate.partnerAccount ?? 'none'}. Rate: ${rate.coinsPerCredit} coins per credit.\n` + 'Link yours: /connect <your account at the credit partner>',
        );
        return;
      }
      const link = await deps.economy.bridge.link(actor, { partner_account: partnerAccount });
      await ctx.reply(`Linked your account at the credit partner (${link.partner}): ${link.partnerAccount}`);
    }),
  );

  bot.command('scrape', (ctx) =>
    asAccount(ctx, SCOPE.scrape, async (actor) => {
      const url = argumentText(ctx.match);
      if (!url) return ctx.reply('url: expected a page to scrape. Usage: /scrape <url>');
      const job = await deps.scrape.start(actor, { url });
      await deps.botNotices.record(job.id, ctx.chat!.id, actor.accountId);
      tools.watchJob(job.id);
      await ctx.reply(`Scrape job ${job.id} started for ${url}. I will tell you here when it ends.`);
    }),
  );

  bot.command('generate', (ctx) =>
    asAccount(ctx, SCOPE.generate, async (actor) => {
      const prompt = argumentText(ctx.match);
      if (!prompt) return ctx.reply('prompt: expected what to draw. Usage: /generate <prompt>');
      await ctx.replyWithChatAction('upload_photo').catch(() => undefined);
      const result = await deps.generation.generate(actor, { prompt });
      const caption = `${result.prompt}\n${result.count} image(s) by ${result.provider}; ${result.creditsCharged} credit(s) charged`.slice(0, 1024);
      const files = result.images.map((image) => new InputFile(Buffer.from(image.url.slice(image.url.indexOf(',') + 1), 'base64'), `image-${image.index + 1}.png`));
      if (files.length === 1) await ctx.replyWithPhoto(files[0]!, { caption });
      else await ctx.replyWithMediaGroup(files.slice(0, 10).map((file, i) => InputMediaBuilder.photo(file, i === 0 ? { caption } : {})));
    }),
  );

  const search = (ctx: Context, text: string) =>
    asAccount(ctx, SCOPE.search, async (actor) => {
      const photo = await tools.photoOf(ctx);
      if (!photo && !text) return ctx.reply('query: expected words to search for, or a photo. Usage: /search <text>, or a photo with the caption /search');
      const answer = await deps.search.search(actor, photo ? { image_data: photo.toString('base64'), limit: RESULTS_SHOWN } : { query: text, limit: RESULTS_SHOWN }, tools.baseUrl);
      if (answer.images.length === 0) return ctx.reply(`Nothing found${answer.query ? ` for "${answer.query}"` : ''}.`);
      const lines = answer.images.map((image, i) => `${i + 1}. ${image.title || 'untitled'} (${image.source}, score ${image.qualityScore})\n${image.url}`);
      await ctx.reply(`${photo ? 'Reverse search' : 'Search'}${answer.query ? ` "${answer.query}"` : ''}: ${answer.totalFound} found\n\n${lines.join('\n')}`, {
        link_preview_options: { is_disabled: true },
      });
    });
  bot.command('search', (ctx) => search(ctx, argumentText(ctx.match)));

  bot.command('verify', (ctx) =>
    asAccount(ctx, SCOPE.media, async (actor) => {
      const queue = await deps.wiki.verifyQueue(actor, { limit: VERIFY_SHOWN });
      if (queue.length === 0) return ctx.reply('No wiki photos are waiting for your vote now.');
      for (const pending of queue) {
        const photo = await deps.wiki.media(actor, pending.id);
        const caption = `Wiki photo ${photo.id}: is this ${photo.subject.name} (${photo.photoType})?${photo.context ? `\n${photo.context}` : ''}`.slice(0, 1024);
        const reply_markup = new InlineKeyboard().text('Confirm', voteButton(photo.id, 'confirm')).text('Reject', voteButton(photo.id, 'reject'));
        const file = await deps.blobs.get(photo.storageKey);
        if (file) await ctx.replyWithPhoto(new InputFile(file.body, `wiki-${photo.id}`), { caption, reply_markup });
        else await ctx.reply(caption, { reply_markup });
      }
    }),
  );

  const wiki = (ctx: Context, text: string) =>
    asAccount(ctx, SCOPE.media, async (actor) => {
      const photo = await tools.photoOf(ctx);
      const parsed = parseWiki(text);
      if (!photo || !parsed.ok) {
        const subjects = await deps.wiki.listSubjects({ limit: 10 });
        const list = subjects.subjects.map((s) => `${s.slug} - ${s.name}`).join('\n');
        return ctx.reply(`Send a photo with the caption /wiki <slug> [photo_type] (or reply to a photo with it).${list ? `\n\nSubjects:\n${list}` : ''}`);
      }
      const { media, duplicate } = await deps.wiki.contribute(actor, parsed.value.slug, { body: photo }, { photo_type: parsed.value.photoType });
      await ctx.reply(
        duplicate
          ? `This photo is already wiki photo ${media.id} of ${parsed.value.slug} (${media.status}).`
          : `Thanks: wiki photo ${media.id} of ${parsed.value.slug} (${media.photoType}) waits for community votes; it pays once verified.`,
      );
    });
  bot.command('wiki', (ctx) => wiki(ctx, argumentText(ctx.match)));

  bot.command('policy', (ctx) =>
    asAccount(ctx, MASTER_KEY, async (actor) => {
      const parsed = parsePolicy(ctx.match);
      if (!parsed.ok) return ctx.reply(parsed.message);
      const item = await deps.intel.setPolicy(actor, parsed.value.imageId, { policy: parsed.value.policy });
      await ctx.reply(`Image ${item.id}: intel policy is now ${item.intelPolicy}.`);
    }),
  );

  bot.command('proposals', (ctx) =>
    asAccount(ctx, ANY_KEY, async (actor) => {
      const parsed = parseProposals(ctx.match);
      if (!parsed.ok) return ctx.reply(parsed.message);
      const page = await deps.intel.proposals(actor, parsed.value.imageId, { limit: PROPOSALS_SHOWN });
      if (page.posts.length === 0) return ctx.reply(`Image ${page.item.id} has no pending proposals.`);
      const lines = page.posts.map((post) => {
        const changes = changesOf(post);
        return `Proposal ${post.id}: ${post.text ?? ''}${changes ? ` ${JSON.stringify(changes)}` : ''}`.trim();
      });
      await ctx.reply(`Pending proposals of image ${page.item.id} (${page.total}):\n${lines.join('\n')}\n\nDecide: /resolve <proposal_id> approve|reject`);
    }),
  );

  bot.command('resolve', (ctx) =>
    asAccount(ctx, MASTER_KEY, async (actor) => {
      const parsed = parseResolve(ctx.match);
      if (!parsed.ok) return ctx.reply(parsed.message);
      const resolution = await deps.intel.resolve(actor, parsed.value.proposalId, { action: parsed.value.action });
      const paid = resolution.proposerPaid > 0 ? `; the proposer earned ${resolution.proposerPaid} coins` : '';
      await ctx.reply(`Proposal ${resolution.post.id} ${resolution.post.status} on image ${resolution.item.id}${paid}.`);
    }),
  );

  bot.command('library', (ctx) =>
    asAccount(ctx, SCOPE.media, async (actor) => {
      const page = await deps.media.list(actor, { limit: LIBRARY_SHOWN });
      if (page.items.length === 0) return ctx.reply('Your media library is empty.');
      const lines = page.items.map((item) => `${item.id}. ${item.name} (${item.kind}${item.width && item.height ? `, ${item.width}x${item.height}` : ''})`);
      await ctx.reply(`Your media library: ${page.total} item(s), newest first\n${lines.join('\n')}`);
    }),
  );

  bot.command('balance', (ctx) =>
    asAccount(ctx, ANY_KEY, async (actor) => {
      // The spendable amount, as every balance the API answers; what pending transfers hold beside it.
      const [coins, credits] = await Promise.all([deps.ledger.balance(actor.accountId, 'coins'), deps.ledger.balance(actor.accountId, 'credits')]);
      const line = (name: string, b: Balance) => `${name}: ${b.balance}${b.held > 0 ? ` spendable, ${b.held} held` : ''}`;
      await ctx.reply(`${line('Coins', coins)}\n${line('Credits', credits)}`);
    }),
  );

  bot.command('api_key', async (ctx) => {
    // Keys never go to a group: refused before anything is read.
    if (!isPrivate(ctx)) return ctx.reply('/api_key works in a private chat with me only: keys are never shown in groups.');
    await asAccount(ctx, MASTER_KEY, async (actor) => {
      if (argumentText(ctx.match).toLowerCase() === 'rotate') {
        const reply_markup = new InlineKeyboard().text('Rotate now', 'ak:rotate').text('Cancel', 'ak:cancel');
        return ctx.reply('Rotating makes a new master key and the current one stops working at once (every program that uses it). Rotate?', { reply_markup });
      }
      const key = await deps.botLinks.masterKeyOf(actor.accountId);
      await ctx.reply(
        `Account @${actor.handle}: master key ${key ? `${key.prefix}... made ${key.createdAt.toISOString()}` : 'none'}.\n` +
          'Keys are kept only as digests, so the whole key cannot be shown again. /api_key rotate makes a new one and shows it here once.',
      );
    });
  });

  bot.on('callback_query:data', async (ctx) => {
    const action = parseCallback(ctx.callbackQuery.data);
    if (!action) return ctx.answerCallbackQuery({ text: 'This button is no longer valid.' });
    if (action.kind === 'vote') {
      return asAccount(ctx, SCOPE.media, async (actor) => {
        const result = await deps.wiki.vote(actor, action.photoId, { vote: action.vote });
        const earned = result.coinsEarned > 0 ? `+${result.coinsEarned} coins (balance ${result.balance})` : 'no coins this time (daily cap)';
        await ctx.answerCallbackQuery({ text: `Vote counted: ${action.vote}. ${earned}` });
        await ctx.editMessageReplyMarkup({ reply_markup: new InlineKeyboard() }).catch(() => undefined);
      });
    }
    if (!isPrivate(ctx)) return ctx.answerCallbackQuery({ text: 'Keys are never shown in groups.', show_alert: true });
    if (!action.rotate) {
      await ctx.answerCallbackQuery({ text: 'Kept your key.' });
      return ctx.editMessageReplyMarkup({ reply_markup: new InlineKeyboard() }).catch(() => undefined);
    }
    return asAccount(ctx, MASTER_KEY, async (actor) => {
      const { apiKey } = await deps.accounts.rotateKey(actor.handle);
      await ctx.answerCallbackQuery({ text: 'Rotated' });
      await ctx.editMessageReplyMarkup({ reply_markup: new InlineKeyboard() }).catch(() => undefined);
      // protect_content: Telegram will not let it be forwarded or saved.
      await ctx.reply(`Your new master key (shown once; the old one no longer works):\n${apiKey}`, { protect_content: true });
    });
  });

  // Photos carry their command in the caption (/search, /wiki), which grammY's command filter does not read.
  bot.on(['message:photo', 'message:document'], async (ctx) => {
    const caption = /^\/([a-z_]+)(?:@\w+)?(?:\s+([\s\S]*))?$/i.exec(ctx.msg.caption?.trim() ?? '');
    const command = caption?.[1]?.toLowerCase();
    if (command === 'search') return search(ctx, argumentText(caption?.[2] ?? ''));
    if (command === 'wiki') return wiki(ctx, argumentText(caption?.[2] ?? ''));
    if (isPrivate(ctx)) await ctx.reply('Send a photo with the caption /search (reverse search) or /wiki <slug> [photo_type] (contribute it).');
  });

  return bot;
}
