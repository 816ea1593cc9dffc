// The chat bot's link code as callers see it, stated once: the answer (REST names) and the GraphQL
// type made from it (src/graphql/answer-object.ts); createBotLinkCode (POST /api/platform/bot-link)
// is declared in bot.operations.ts.
import { z } from 'zod';
import { answerObject } from '../../graphql/answer-object.js';
import { count, timestamp } from '../../platform/wire.js';
import type { LinkCode } from './links.service.js';

export const botLinkCode = z.object({
  code: z.string().describe('12 characters: shown in this answer only'),
  command: z.string().describe('what to send the bot: /start <code>'),
  link: z.string().nullable().describe("the bot's deep link https://t.me/<bot>?start=<code>, once the service knows the bot's username"),
  expires_at: timestamp,
  expires_in_seconds: count,
});
export const BotLinkCodeRef = answerObject<LinkCode>('BotLinkCode', botLinkCode, {
  description: 'A one-time code that links a Telegram account to this account: send /start <code> to the bot before it expires',
});
