// Public surface of the chat bot module (spec "Chat bot commands"): account links, job notices and
// the Telegram runtime the composition root starts in API processes.
export { BotLinksService, normaliseCode, MAX_LIVE_CODES, type LinkCode, type RedeemResult } from './links.service.js';
export { BotNoticesService, MAX_NOTICE_ATTEMPTS, type DueNotice } from './notices.service.js';
import type { TelegramRuntime } from './telegram.bot.js';

export type { TelegramRuntime, BotSite, TelegramRuntimeOptions } from './telegram.bot.js';
export { HELP, NOT_LINKED, COMMAND_LIST } from './bot.help.js';
export { TELEGRAM_WEBHOOK_PATH, TELEGRAM_MODES, telegramConfigFrom, telegramEnvShape, type TelegramConfig, type TelegramMode } from './bot.settings.js';
export { setupBot } from './bot.setup.js';

/** The Telegram runtime, loaded when a process runs the bot: grammY and its plugins cost every other start about 0.25 CPU s. */
export async function loadTelegramRuntime(): Promise<typeof TelegramRuntime> {
  return (await import('./telegram.bot.js')).TelegramRuntime;
}
