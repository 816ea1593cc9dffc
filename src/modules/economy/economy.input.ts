// What an economy input may be: the only statement of it (the services parse with these; the REST
// route table and the OpenAPI document take them from here).
import { z } from 'zod';
import { amountSchema, grantSchemaFor } from '../ledger/index.js';

const idempotencyKey = z
  .string({ error: 'expected a string' })
  .regex(/^[\x21-\x7e]{1,120}$/, 'expected 1 to 120 printable characters without spaces')
  .nullish();

/** POST /api/economy/bridge/convert, convertCoins. */
export const convertSchema = z.object({
  coins: amountSchema('coins is required: the coins to convert into API credits').describe('coins to convert (> 0, at most 4 decimals); only what makes whole 0.0001 credits is burned'),
  idempotency_key: idempotencyKey.describe('makes a retried conversion count once (the same key with another amount: 409)'),
});

/** POST /api/economy/bridge/link, linkBridgeAccount. */
export const linkSchema = z.object({
  partner_account: z
    .string({ error: (issue) => (issue.input === undefined ? 'partner_account is required: your account at the credit partner' : 'expected a string') })
    .trim()
    .min(1, 'partner_account is required: your account at the credit partner')
    .max(200, 'expected at most 200 characters')
    .regex(/^[^\p{Cc}]+$/u, 'expected no control characters')
    .describe('your account (id, handle or email) at the credit partner'),
});

/** POST /api/admin/accounts/:handle/coins, adminGrantCoins. */
export const coinGrantSchema = grantSchemaFor('coins');
/** Path segment of a style preset. */
export const styleSlugSchema = z.string({ error: 'slug is required' }).trim().toLowerCase().min(1, 'slug is required').max(100, 'expected at most 100 characters');
