// The Telegram chat bot (spec "Chat bot commands"; the route is ours): the one-time code that links a
// Telegram account to the caller's account. The webhook Telegram posts updates to (POST
// /telegram/webhook) is Telegram's, not a client's: it is served outside this table (src/http/app.ts).
import { z } from 'zod';
import { defineRoute } from '../route.js';
import { MASTER_KEY } from '../../src/modules/access/index.js';
import { unwrap } from '../result.js';
import { CreateBotLinkCodeDocument } from '../generated/operations.js';
import { count, timestamp } from '../schemas.js';

export const botRoutes = [
  defineRoute({
    method: 'POST',
    path: '/api/platform/bot-link',
    auth: 'key',
    key: MASTER_KEY,
    summary: 'A one-time code that links a Telegram account to this account: send /start <code> to the bot within 10 minutes (TELEGRAM_LINK_CODE_MINUTES)',
    description:
      'The code is kept only as a SHA-256 digest and links once; a used or expired code is refused by the bot. The bot then acts for this account with its master scopes, quotas and credits. At most 10 unused codes at once.',
    operation: CreateBotLinkCodeDocument,
    response: z.object({
      code: z.string().describe('12 characters: shown in this answer only'),
      command: z.string().describe('what to send the bot: /start <code>'),
      link: z.string().nullable().describe("the bot's deep link https://t.me/<bot>?start=<code>, once the service knows the bot's username"),
      expires_at: timestamp,
      expires_in_seconds: count,
    }),
    errors: { 409: 'the account already has 10 unused codes', 503: 'the Telegram bot is not configured (TELEGRAM_BOT_TOKEN)' },
    successStatus: 201,
    shape: (data) => {
      const made = unwrap(data.createBotLinkCode);
      return { code: made.code, command: made.command, link: made.link ?? null, expires_at: made.expiresAt, expires_in_seconds: made.expiresInSeconds };
    },
  }),
];
