// What configuration says about the Telegram chat bot (src/config.ts reads it). A leaf file (zod
// only), so the configuration reads it without loading grammY.
import { z } from 'zod';
import { optionalSecret } from '../../platform/env.js';

/** Where Telegram posts updates in webhook mode. */
export const TELEGRAM_WEBHOOK_PATH = '/telegram/webhook';

export const TELEGRAM_MODES = ['polling', 'webhook', 'none'] as const;
export type TelegramMode = (typeof TELEGRAM_MODES)[number];

export interface TelegramConfig {
  /** The bot's token (a secret: never logged, never answered). */
  token: string;
  /**
   * How this process takes updates: polling (getUpdates; ONE process per token), webhook (POST
   * /telegram/webhook, any number of API processes), none (takes no updates, still sends job notices).
   */
  mode: TelegramMode;
  /** Compared with X-Telegram-Bot-Api-Secret-Token on every webhook POST (required in webhook mode). */
  webhookSecret?: string;
  /** The Bot API's base URL (a local fake in tests). */
  apiRoot: string;
  /** Lifetime of a one-time link code. */
  linkCodeMinutes: number;
  /** Updates handled at once by this process. */
  concurrency: number;
  /** How often finished jobs are looked for to tell their chats. */
  noticePollMs: number;
}

const TOKEN_PATTERN = /^\d{1,20}:[A-Za-z0-9_-]{20,100}$/;

/** The TELEGRAM_* variables, spread into the configuration's schema. */
export const telegramEnvShape = {
  TELEGRAM_BOT_TOKEN: optionalSecret.refine((v) => v === undefined || TOKEN_PATTERN.test(v), 'TELEGRAM_BOT_TOKEN must look like 123456789:AAH... (the token @BotFather gave)').describe("turns the Telegram bot on: the token @BotFather gave (a secret: never logged; it is only in the Bot API's URLs) ([Telegram bot](telegram-bot.md#telegram-bot))"),
  TELEGRAM_MODE: z.enum(TELEGRAM_MODES, { error: `TELEGRAM_MODE must be one of ${TELEGRAM_MODES.join(', ')}` }).default('polling').describe('how this API process takes updates: `polling` (getUpdates; **one process per token**), `webhook` (`POST /telegram/webhook`; any number of API processes), `none` (takes none, still sends job notices)'),
  // Telegram allows 1 to 256 characters of A-Z, a-z, 0-9, _ and - (setWebhook secret_token).
  TELEGRAM_WEBHOOK_SECRET: optionalSecret.refine((v) => v === undefined || /^[A-Za-z0-9_-]{16,256}$/.test(v), 'TELEGRAM_WEBHOOK_SECRET must be 16 to 256 characters of A-Z, a-z, 0-9, _ and -').describe('required in webhook mode: 16 to 256 of `A-Z a-z 0-9 _ -`; registered with `setWebhook` and compared with `X-Telegram-Bot-Api-Secret-Token` on every POST'),
  TELEGRAM_API_ROOT: z.string().url('TELEGRAM_API_ROOT must be an http(s) URL').regex(/^https?:\/\//i, 'TELEGRAM_API_ROOT must be an http(s) URL').default('https://api.telegram.org').describe("base URL of the Bot API (a local Bot API server, or the tests' fake)"),
  TELEGRAM_LINK_CODE_MINUTES: z.coerce.number().int().min(1).max(1440).default(10).describe('lifetime of a one-time link code (1 to 1440)'),
  TELEGRAM_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4).describe("updates one process handles at once (a slow `/generate` holds neither the poll nor the webhook's answer)"),
  TELEGRAM_NOTICE_POLL_MS: z.coerce.number().int().min(10).max(600_000).default(2_000).describe('how often finished jobs are looked for to tell their chats (a job event in this process, or through Redis, tells sooner)'),
};

type TelegramEnv = { [K in keyof typeof telegramEnvShape]: z.output<(typeof telegramEnvShape)[K]> };

/** The bot's configuration, or undefined when no token is set (the bot is off). Throws for a webhook without a secret. */
export function telegramConfigFrom(e: TelegramEnv): TelegramConfig | undefined {
  if (!e.TELEGRAM_BOT_TOKEN) return undefined;
  if (e.TELEGRAM_MODE === 'webhook' && !e.TELEGRAM_WEBHOOK_SECRET) {
    throw new Error('invalid configuration:\n  TELEGRAM_WEBHOOK_SECRET: required when TELEGRAM_MODE is webhook (Telegram sends it back in X-Telegram-Bot-Api-Secret-Token)');
  }
  return {
    token: e.TELEGRAM_BOT_TOKEN,
    mode: e.TELEGRAM_MODE,
    webhookSecret: e.TELEGRAM_WEBHOOK_SECRET,
    apiRoot: e.TELEGRAM_API_ROOT.replace(/\/$/, ''),
    linkCodeMinutes: e.TELEGRAM_LINK_CODE_MINUTES,
    concurrency: e.TELEGRAM_CONCURRENCY,
    noticePollMs: e.TELEGRAM_NOTICE_POLL_MS,
  };
}
