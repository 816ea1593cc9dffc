// The chat bot's operation, declared once (docs/architecture.md; the route is ours, spec "Chat bot
// commands"): the one-time code that links a Telegram account to the caller's account. Master key
// only: a link lets the bot act with every scope. The webhook Telegram posts updates to (POST
// /telegram/webhook) is Telegram's, not a client's: it is served outside the route table (src/http/app.ts).
import { defineMutation, defineOperations } from '../../graphql/operation.js';
import { MASTER_KEY } from '../access/index.js';
import { BotLinkCodeRef } from './bot.schema.js';

export const botOperations = defineOperations({
  createBotLinkCode: defineMutation({
    description: 'A one-time code (10 minutes by default, TELEGRAM_LINK_CODE_MINUTES) that links a Telegram account to this account through /start <code>',
    key: MASTER_KEY,
    output: BotLinkCodeRef,
    run: ({ ctx, actor }) => ctx.services.botLinks.createCode(actor),
    rest: {
      route: 'POST /api/platform/bot-link',
      summary: 'A one-time code that links a Telegram account to this account: send /start <code> to the bot within 10 minutes (TELEGRAM_LINK_CODE_MINUTES)',
      description:
        'The code is kept only as a SHA-256 digest and links once; a used or expired code is refused by the bot. The bot then acts for this account with its master scopes, quotas and credits. At most 10 unused codes at once.',
      errors: { 409: 'the account already has 10 unused codes', 503: 'the Telegram bot is not configured (TELEGRAM_BOT_TOKEN)' },
      successStatus: 201,
    },
  }),
});
