// GraphQL surface of the chat bot: the one-time code that links a Telegram account to the caller's
// account (POST /api/platform/bot-link runs it). Master key only: a link lets the bot act with every scope.
import { builder } from '../../graphql/builder.js';
import { authScopesOf, MASTER_KEY } from '../access/index.js';
import type { LinkCode } from './links.service.js';

const BotLinkCodeRef = builder.objectRef<LinkCode>('BotLinkCode').implement({
  description: 'A one-time code that links a Telegram account to this account: send /start <code> to the bot before it expires',
  fields: (t) => ({
    code: t.exposeString('code', { description: 'The code: shown in this answer only (kept as a digest)' }),
    expiresAt: t.expose('expiresAt', { type: 'DateTime' }),
    expiresInSeconds: t.exposeInt('expiresInSeconds'),
    command: t.exposeString('command', { description: 'What to send the bot: /start <code>' }),
    link: t.exposeString('link', { nullable: true, description: "The bot's deep link (https://t.me/<bot>?start=<code>), when the bot's username is known" }),
  }),
});

builder.mutationField('createBotLinkCode', (t) =>
  t.field({
    type: BotLinkCodeRef,
    authScopes: authScopesOf(MASTER_KEY),
    errors: {},
    description: 'A one-time code (10 minutes by default, TELEGRAM_LINK_CODE_MINUTES) that links a Telegram account to this account through /start <code>',
    resolve: (_root, _args, ctx) => ctx.services.botLinks.createCode(ctx.actor),
  }),
);
