// Builds the bot's account links and job notices and adds them to the service registry's type (the
// Telegram runtime itself is started by the composition root, src/app.ts).
import type { Services } from '../../platform/service-registry.js';
import type { TelegramConfig } from './bot.settings.js';
import { BotLinksService } from './links.service.js';
import { BotNoticesService } from './notices.service.js';

declare module '../../platform/service-registry.js' {
  interface Services {
    /** The Telegram bot's account links (one-time codes) and its "tell this chat when the job ends" rows. */
    botLinks: BotLinksService;
    botNotices: BotNoticesService;
  }
}

export function setupBot({ db, quota, settings }: Pick<Services, 'db' | 'quota'> & { settings?: TelegramConfig }): Pick<Services, 'botLinks' | 'botNotices'> {
  return { botLinks: new BotLinksService(db, quota, settings), botNotices: new BotNoticesService(db) };
}
