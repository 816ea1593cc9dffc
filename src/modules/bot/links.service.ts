// Which account a Telegram user is: one-time link codes (POST /api/platform/bot-link, master key),
// redeemed with /start <code>, and the Actor the bot acts as. The actor is built the way the HTTP
// layer builds one (actorFrom over the account's live master key and its current state), read again
// for every update, so a suspension or a key rotation counts at once.
import { createHash, randomInt } from 'node:crypto';
import type { Database } from '../../platform/database/database.js';
import { Conflict, Unavailable } from '../../platform/errors.js';
import { createWithinCap } from '../../platform/database/caps.js';
import { actorFrom, keyStateRefusal, type Actor } from '../accounts/index.js';
import { MASTER_KEY, requireKey } from '../access/index.js';
import type { QuotaService } from '../quota/index.js';
import type { TelegramConfig } from './bot.settings.js';

/** Crockford-like alphabet without 0/O and 1/I: easy to read aloud and to type. */
const CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
/** 12 characters of 32: 60 random bits, tried at most REDEEM_TRIES_PER_HOUR times an hour per Telegram user. */
const CODE_LENGTH = 12;
/** Unused, unexpired codes an account may hold at once. */
export const MAX_LIVE_CODES = 10;
const REDEEM_TRIES_PER_HOUR = 10;
const HOUR_MS = 3_600_000;

export interface LinkCode {
  code: string;
  expiresAt: Date;
  expiresInSeconds: number;
  /** What to send the bot. */
  command: string;
  /** The bot's deep link that sends it (https://t.me/<bot>?start=<code>), once this process knows the bot's username. */
  link: string | null;
}

export type RedeemResult = { linked: true; handle: string; replaced: boolean } | { linked: false; reason: 'unknown' | 'used' | 'expired' | 'throttled'; retryAfterSeconds?: number };

const digest = (code: string) => createHash('sha256').update(code).digest('hex');

/** What a user typed, as codes are made: upper case, without spaces or dashes. */
export function normaliseCode(text: string): string {
  return text.replace(/[\s-]/g, '').toUpperCase();
}

export class BotLinksService {
  private botUsername: string | null = null;

  constructor(
    private readonly db: Database,
    private readonly quota: QuotaService,
    private readonly config: TelegramConfig | undefined,
  ) {}

  /** The bot's username (getMe), for deep links. */
  useBotUsername(username: string): void {
    this.botUsername = username;
  }

  /** POST /api/platform/bot-link: a new one-time code for the caller's account (master key only). */
  async createCode(actor: Actor | null, now = new Date()): Promise<LinkCode> {
    const caller = requireKey(actor, MASTER_KEY);
    if (!this.config) throw new Unavailable('the Telegram bot is not configured on this service (TELEGRAM_BOT_TOKEN)');
    // Old codes go as new ones are asked for: only digests of live codes stay.
    await this.db.prisma.botLinkCode.deleteMany({ where: { accountId: caller.accountId, OR: [{ usedAt: { not: null } }, { expiresAt: { lte: now } }] } });
    const minutes = this.config.linkCodeMinutes;
    const code = Array.from({ length: CODE_LENGTH }, () => CODE_ALPHABET[randomInt(CODE_ALPHABET.length)]).join('');
    const expiresAt = new Date(now.getTime() + minutes * 60_000);
    await createWithinCap(this.db, {
      name: 'bot-link-codes',
      ownerId: caller.accountId,
      limit: MAX_LIVE_CODES,
      count: (tx) => tx.botLinkCode.count({ where: { accountId: caller.accountId } }),
      refuse: () => new Conflict(`this account already has ${MAX_LIVE_CODES} unused link codes: use one, or wait until they expire (${minutes} minutes)`),
      create: (tx) => tx.botLinkCode.create({ data: { accountId: caller.accountId, codeHash: digest(code), expiresAt } }),
    });
    return {
      code,
      expiresAt,
      expiresInSeconds: this.config.linkCodeMinutes * 60,
      command: `/start ${code}`,
      link: this.botUsername ? `https://t.me/${this.botUsername}?start=${code}` : null,
    };
  }

  /**
   * /start <code>: links the Telegram user to the code's account (replacing an earlier link). The code
   * is spent in the statement that checks it, so two redemptions at once link one user only.
   */
  async redeem(telegramUserId: number, typed: string, now = new Date()): Promise<RedeemResult> {
    const tries = await this.quota.take([{ key: `bot-link:${telegramUserId}`, limit: REDEEM_TRIES_PER_HOUR }], HOUR_MS, now);
    if (!tries.taken) return { linked: false, reason: 'throttled', retryAfterSeconds: tries.retryAfterSeconds };
    const hash = digest(normaliseCode(typed));
    const user = BigInt(telegramUserId);
    return this.db.prisma.$transaction(async (tx) => {
      const spent = await tx.botLinkCode.updateManyAndReturn({
        where: { codeHash: hash, usedAt: null, expiresAt: { gt: now } },
        data: { usedAt: now, usedByTelegram: user },
      });
      const code = spent[0];
      if (!code) {
        const found = await tx.botLinkCode.findUnique({ where: { codeHash: hash } });
        return { linked: false, reason: !found ? 'unknown' : found.usedAt ? 'used' : 'expired' } as const;
      }
      const before = await tx.botLink.findUnique({ where: { telegramUserId: user } });
      await tx.botLink.upsert({
        where: { telegramUserId: user },
        create: { telegramUserId: user, accountId: code.accountId },
        update: { accountId: code.accountId, createdAt: now },
      });
      const account = await tx.account.findUniqueOrThrow({ where: { id: code.accountId }, select: { handle: true } });
      return { linked: true, handle: account.handle, replaced: before !== null && before.accountId !== code.accountId } as const;
    });
  }

  /** /unlink: the Telegram user is no one's any more. True when a link was removed. */
  async unlink(telegramUserId: number): Promise<boolean> {
    const removed = await this.db.prisma.botLink.deleteMany({ where: { telegramUserId: BigInt(telegramUserId) } });
    return removed.count > 0;
  }

  /**
   * The actor the bot acts as for this Telegram user: the linked account's live master key, as the
   * database has it now. Null when the user is not linked; a 403 when the account is not active.
   */
  async actorFor(telegramUserId: number, now = new Date()): Promise<Actor | null> {
    const link = await this.db.prisma.botLink.findUnique({
      where: { telegramUserId: BigInt(telegramUserId) },
      include: { account: { include: { apiKeys: { where: { kind: 'master', revokedAt: null }, orderBy: { id: 'desc' }, take: 1 } } } },
    });
    const key = link?.account.apiKeys[0];
    if (!link || !key) return null;
    const state = { revoked: false, expires_at: null, status: link.account.status, handle: link.account.handle, tier: link.account.tier, scopes: key.scopes, credit_limit: key.requestBudget };
    const refusal = keyStateRefusal('master', state, now);
    if (refusal) throw refusal;
    return actorFrom({ accountId: link.accountId, keyId: key.id, keyKind: 'master' }, state);
  }

  /** The live master key's display prefix and creation time (what /api_key shows; the key itself is kept only as a digest). */
  async masterKeyOf(accountId: number): Promise<{ prefix: string; createdAt: Date } | null> {
    return this.db.prisma.apiKey.findFirst({ where: { accountId, kind: 'master', revokedAt: null }, orderBy: { id: 'desc' }, select: { prefix: true, createdAt: true } });
  }
}
