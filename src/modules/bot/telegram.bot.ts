// The Telegram bot as it runs in an API process: grammY with the auto-retry (429 retry_after, 5xx)
// and throttler (Telegram's flood limits) plugins, updates taken by long polling or at POST
// /telegram/webhook (TELEGRAM_MODE), handled TELEGRAM_CONCURRENCY at once, and the notifier that
// tells chats their scrape ended. The token is in the Bot API's URLs only: nothing here logs a URL,
// a context or a request payload (a payload may carry a new API key).
import { timingSafeEqual, createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import PQueue from 'p-queue';
import { Bot, GrammyError, HttpError, type Context } from 'grammy';
import type { Update } from 'grammy/types';
import { autoRetry } from '@grammyjs/auto-retry';
import { apiThrottler, type APIThrottlerOptions } from '@grammyjs/transformer-throttler';
import type { Services } from '../../platform/service-registry.js';
import { AppError, PayloadTooLarge, Unavailable } from '../../platform/errors.js';
import type { Logger } from '../../platform/logger.js';
import { TELEGRAM_WEBHOOK_PATH, type TelegramConfig } from './bot.settings.js';
import { botCommands, type BotServices } from './bot.commands.js';
import { COMMAND_LIST } from './bot.help.js';
import type { DueNotice } from './notices.service.js';

const SECRET_HEADER = 'x-telegram-bot-api-secret-token';
/** Bots may download files of up to 20 MB (Bot API getFile). */
const BOT_API_FILE_LIMIT = 20 * 1024 * 1024;
/** How long a /scrape waits on the job's events before leaving it to the poll. */
const WATCH_MS = 3_600_000;
const MAX_WATCHES = 1_000;
const RESTART_DELAY_MS = 5_000;

export interface TelegramRuntimeOptions {
  /** Throttler settings (tests shorten Telegram's per-chat spacing). */
  throttle?: APIThrottlerOptions;
  /** getUpdates long-poll timeout in seconds (Telegram's default use: 30). */
  pollTimeoutSeconds?: number;
  /** Most retries of one Bot API call (429 with retry_after, 5xx, network). */
  maxRetries?: number;
}

/** What the runtime reads of the service's configuration beyond TELEGRAM_* (src/config.ts's Config is one). */
export interface BotSite {
  /** Base of the links the bot sends (PUBLIC_BASE_URL; else http://localhost:PORT). */
  publicBaseUrl?: string;
  port: number;
  /** Largest photo taken from Telegram (UPLOAD_MAX_BYTES, at most the Bot API's 20 MB). */
  uploadMaxBytes: number;
  fetch: { timeoutMs: number };
}

export class TelegramRuntime {
  readonly bot: Bot<Context>;
  private readonly queue: PQueue;
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly watches = new Set<AsyncIterator<unknown>>();
  private stopping = false;
  private polling: Promise<void> | null = null;
  private delivering: Promise<void> | null = null;
  private deliverAgain = false;
  private wakeFromRestartDelay: () => void = () => undefined;

  constructor(
    private readonly services: BotServices & Pick<Services, 'events'>,
    private readonly config: TelegramConfig,
    private readonly site: BotSite,
    private readonly logger: Logger,
    private readonly options: TelegramRuntimeOptions = {},
  ) {
    this.bot = new Bot<Context>(config.token, { client: { apiRoot: config.apiRoot } });
    this.bot.api.config.use(apiThrottler(options.throttle));
    this.bot.api.config.use(autoRetry({ maxRetryAttempts: options.maxRetries ?? 3, maxDelaySeconds: 60 }));
    this.queue = new PQueue({ concurrency: config.concurrency });
    // Each update runs in the queue, so a slow /generate holds neither the poll nor the webhook's answer.
    this.bot.use(async (ctx, next) => {
      await this.queue.onSizeLessThan(config.concurrency * 8);
      void this.queue.add(() => next().catch((error: unknown) => this.failed(ctx, error)));
    });
    this.bot.use(
      botCommands(services, {
        photoOf: (ctx) => this.photoOf(ctx),
        watchJob: (jobId) => this.watchJob(jobId),
        baseUrl: site.publicBaseUrl ?? `http://localhost:${site.port}`,
      }),
    );
  }

  /** Starts taking updates (by the mode) and the notifier. Never throws for Telegram being away: it logs and retries. */
  async start(): Promise<void> {
    this.timers.push(setInterval(() => this.deliverNotices(), this.config.noticePollMs).unref());
    if (this.config.mode === 'none') return;
    try {
      await this.bot.init();
      this.services.botLinks.useBotUsername(this.bot.botInfo.username);
      await this.bot.api.setMyCommands(COMMAND_LIST);
    } catch (error) {
      this.logger.warn({ err: safeError(error) }, 'Telegram bot: the Bot API did not answer at start; updates are taken once it does');
    }
    if (this.config.mode === 'polling') this.polling = this.poll();
    else await this.registerWebhook();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    for (const timer of this.timers) clearInterval(timer);
    for (const watch of this.watches) await watch.return?.();
    if (this.bot.isRunning()) await this.bot.stop().catch(() => undefined);
    this.wakeFromRestartDelay();
    await this.polling;
    await Promise.race([this.queue.onIdle(), new Promise((resolve) => setTimeout(resolve, 5_000).unref())]);
    await this.delivering;
  }

  /** POST /telegram/webhook: the secret header first, then the update is queued and answered 200 at once. */
  webhook = async (req: Request, res: Response): Promise<void> => {
    if (this.config.mode !== 'webhook') {
      res.status(404).json({ success: false, error: 'the Telegram webhook is off here (TELEGRAM_MODE is not webhook)' });
      return;
    }
    if (!sameSecret(req.get(SECRET_HEADER), this.config.webhookSecret!)) {
      res.status(401).json({ success: false, error: 'X-Telegram-Bot-Api-Secret-Token is missing or wrong' });
      return;
    }
    const update = req.body as Update | undefined;
    if (!update || typeof update !== 'object' || !Number.isSafeInteger(update.update_id)) {
      res.status(400).json({ success: false, error: 'body: expected a Telegram Update (JSON with update_id)' });
      return;
    }
    try {
      if (!this.bot.isInited()) await this.bot.init();
      await this.bot.handleUpdate(update);
      res.status(200).json({ success: true });
    } catch (error) {
      this.logger.warn({ err: safeError(error), updateId: update.update_id }, 'Telegram webhook update could not be taken');
      res.status(503).json({ success: false, error: 'the update could not be taken now; Telegram sends it again' });
    }
  };

  /** Long polling until stopped; a failure (Telegram away, another process polling) is logged and polling restarts. */
  private async poll(): Promise<void> {
    while (!this.stopping) {
      try {
        await this.bot.start({ timeout: this.options.pollTimeoutSeconds ?? 30, allowed_updates: ['message', 'callback_query'] });
      } catch (error) {
        const conflict = error instanceof GrammyError && error.error_code === 409;
        this.logger.warn({ err: safeError(error) }, conflict ? 'Telegram bot: another process polls with this token (only one may); retrying' : 'Telegram polling stopped; restarting');
      }
      if (!this.stopping) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, RESTART_DELAY_MS);
          // stop() ends the wait at once.
          this.wakeFromRestartDelay = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
    }
  }

  private async registerWebhook(): Promise<void> {
    const base = this.site.publicBaseUrl;
    if (!base) {
      this.logger.warn('Telegram bot: TELEGRAM_MODE is webhook but PUBLIC_BASE_URL is unset, so the webhook was not registered with Telegram');
      return;
    }
    try {
      await this.bot.api.setWebhook(`${base}${TELEGRAM_WEBHOOK_PATH}`, { secret_token: this.config.webhookSecret, allowed_updates: ['message', 'callback_query'] });
    } catch (error) {
      this.logger.warn({ err: safeError(error) }, 'Telegram bot: setWebhook failed');
    }
  }

  /** The photo of the message (or of the message it replies to), downloaded through the Bot API. */
  private async photoOf(ctx: Context): Promise<Buffer | null> {
    const maxBytes = Math.min(this.site.uploadMaxBytes, BOT_API_FILE_LIMIT);
    for (const message of [ctx.msg, ctx.msg?.reply_to_message]) {
      const file = message?.photo?.at(-1) ?? (message?.document?.mime_type?.startsWith('image/') ? message.document : undefined);
      if (!file) continue;
      if (file.file_size !== undefined && file.file_size > maxBytes) throw new PayloadTooLarge(`photo: larger than ${maxBytes} bytes`);
      const info = await ctx.api.getFile(file.file_id).catch((error: unknown) => {
        this.logger.warn({ err: safeError(error) }, 'Telegram getFile failed');
        return null;
      });
      if (!info?.file_path) throw new Unavailable('photo: Telegram did not hand over the file; send it again');
      return this.download(info.file_path, maxBytes);
    }
    return null;
  }

  private async download(filePath: string, maxBytes: number): Promise<Buffer> {
    let answer: globalThis.Response;
    try {
      answer = await fetch(`${this.config.apiRoot}/file/bot${this.config.token}/${filePath}`, { signal: AbortSignal.timeout(this.site.fetch.timeoutMs) });
    } catch {
      throw new Unavailable('photo: Telegram did not hand over the file; send it again');
    }
    if (!answer.ok || !answer.body) throw new Unavailable(`photo: Telegram answered ${answer.status} for the file; send it again`);
    const reader = answer.body.getReader();
    const chunks: Buffer[] = [];
    let size = 0;
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      size += read.value.length;
      if (size > maxBytes) {
        await reader.cancel().catch(() => undefined);
        throw new PayloadTooLarge(`photo: larger than ${maxBytes} bytes`);
      }
      chunks.push(Buffer.from(read.value));
    }
    return Buffer.concat(chunks);
  }

  /** Wakes the notifier when the job's event arrives (any process, through the event bus); the poll is the fallback. */
  private watchJob(jobId: number): void {
    if (this.watches.size >= MAX_WATCHES || this.stopping) return;
    const updates = this.services.events.subscribe('jobUpdates', jobId)[Symbol.asyncIterator]();
    this.watches.add(updates);
    const deadline = setTimeout(() => void updates.return?.(), WATCH_MS).unref();
    void (async () => {
      try {
        for (let next = await updates.next(); !next.done; next = await updates.next()) {
          if (next.value.state === 'completed' || next.value.state === 'failed') {
            this.deliverNotices();
            break;
          }
        }
      } finally {
        clearTimeout(deadline);
        this.watches.delete(updates);
        await updates.return?.();
      }
    })().catch((error: unknown) => this.logger.warn({ err: error, jobId }, 'watching a job for its chat notice failed'));
  }

  /** Sends every due notice; a call while a round runs asks for one more round. */
  private deliverNotices(): void {
    if (this.delivering) {
      this.deliverAgain = true;
      return;
    }
    this.delivering = (async () => {
      do {
        this.deliverAgain = false;
        try {
          for (let due = await this.services.botNotices.claimDue(); due.length > 0 && !this.stopping; due = await this.services.botNotices.claimDue()) {
            await Promise.all(due.map((notice) => this.sendNotice(notice)));
          }
        } catch (error) {
          this.logger.warn({ err: error }, 'looking for finished jobs to tell their chats failed');
        }
      } while (this.deliverAgain && !this.stopping);
    })().finally(() => {
      this.delivering = null;
    });
  }

  private async sendNotice(notice: DueNotice): Promise<void> {
    const base = this.site.publicBaseUrl ?? `http://localhost:${this.site.port}`;
    const text =
      notice.state === 'completed'
        ? `Scrape job ${notice.jobId} finished: ${notice.assetsStored} file(s).\nZIP: ${base}/download/${notice.jobId} (send your API key in the X-API-Key header)`
        : `Scrape job ${notice.jobId} failed: ${notice.error ?? 'no reason given'}`;
    try {
      await this.bot.api.sendMessage(notice.chatId, text, { link_preview_options: { is_disabled: true } });
    } catch (error) {
      const again = await this.services.botNotices.release(notice).catch(() => false);
      this.logger.warn({ err: safeError(error), jobId: notice.jobId, attempt: notice.attempts, given_up: !again }, 'telling a chat its job ended failed');
    }
  }

  /** A command that threw: a service's refusal is the user's answer; anything else is logged and apologised for. */
  private async failed(ctx: Context, error: unknown): Promise<void> {
    const known = error instanceof AppError;
    if (!known) this.logger.error({ err: safeError(error), updateId: ctx.update.update_id }, 'Telegram update failed');
    const text = known ? error.message : 'Something went wrong on our side; please try again later.';
    try {
      if (ctx.callbackQuery) await ctx.answerCallbackQuery({ text: text.slice(0, 200), show_alert: true });
      else if (ctx.chat) await ctx.reply(known ? `Refused: ${text}` : text);
    } catch (answerError) {
      this.logger.warn({ err: safeError(answerError), updateId: ctx.update.update_id }, 'answering a failed Telegram update failed');
    }
  }
}

/** Constant-time comparison of the webhook secret. */
function sameSecret(presented: string | undefined, expected: string): boolean {
  if (presented === undefined) return false;
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(presented), digest(expected));
}

/** What may be logged of a Bot API failure: never its payload (a message may carry a key) or a URL (it carries the token). */
function safeError(error: unknown): Record<string, unknown> {
  if (error instanceof GrammyError) return { type: 'GrammyError', method: error.method, error_code: error.error_code, description: error.description };
  if (error instanceof HttpError) return { type: 'HttpError', message: error.message };
  if (error instanceof Error) return { type: error.name, message: error.message, stack: error.stack };
  return { message: String(error) };
}
