// GraphQL types of the chat bot; createBotLinkCode (POST /api/platform/bot-link) is declared in bot.operations.ts.
import { builder } from '../../graphql/builder.js';
import type { LinkCode } from './links.service.js';

export const BotLinkCodeRef = builder.objectRef<LinkCode>('BotLinkCode').implement({
  description: 'A one-time code that links a Telegram account to this account: send /start <code> to the bot before it expires',
  fields: (t) => ({
    code: t.exposeString('code', { description: 'The code: shown in this answer only (kept as a digest)' }),
    expiresAt: t.expose('expiresAt', { type: 'DateTime' }),
    expiresInSeconds: t.exposeInt('expiresInSeconds'),
    command: t.exposeString('command', { description: 'What to send the bot: /start <code>' }),
    link: t.exposeString('link', { nullable: true, description: "The bot's deep link (https://t.me/<bot>?start=<code>), when the bot's username is known" }),
  }),
});
