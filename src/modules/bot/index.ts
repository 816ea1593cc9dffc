// Public surface of the chat bot module (spec "Chat bot commands"): account links, job notices and
// the Telegram runtime the composition root starts in API processes.
export { BotLinksService, normaliseCode, MAX_LIVE_CODES, type LinkCode, type RedeemResult } from './links.service.js';
export { BotNoticesService, MAX_NOTICE_ATTEMPTS, type DueNotice } from './notices.service.js';
export { TelegramRuntime, TELEGRAM_WEBHOOK_PATH, type BotSite, type TelegramRuntimeOptions } from './telegram.bot.js';
export { HELP, NOT_LINKED, COMMAND_LIST } from './bot.commands.js';
export { TELEGRAM_MODES, telegramConfigFrom, telegramEnvShape, type TelegramConfig, type TelegramMode } from './bot.settings.js';
export { setupBot } from './bot.setup.js';
