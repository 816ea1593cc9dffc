// The Telegram chat bot: POST /api/platform/bot-link, declared in src/modules/bot/bot.operations.ts.
import { restRoutesOf } from '../derive.js';
import { botOperations } from '../../src/modules/bot/bot.operations.js';

export const botRoutes = restRoutesOf(botOperations);
