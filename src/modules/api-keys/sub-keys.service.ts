// Scoped, credit-limited sub-keys (spec "Platform"). Only a master key manages them, so a sub-key
// can neither create another one nor widen its own scopes.
import { z } from 'zod';
import type { Database } from '../../platform/database/database.js';
import { Conflict, NotFound } from '../../platform/errors.js';
import { parseInput } from '../../platform/validation.js';
import { createWithinCap } from '../../platform/database/caps.js';
import { modelRows, type ModelRows } from '../../platform/database/model-rows.js';
import { pageAndTotal } from '../../platform/database/page-and-total.js';
import { cursorPageSchema } from '../../graphql/connection-cursor.js';
import type { ApiKey, Prisma } from '../../generated/prisma/client.js';
import type { Actor, KeyWatch } from '../accounts/index.js';
import { subKeyPolicy } from './sub-keys.access.js';
import { displayPrefix, generateKey, keyMatches, SUB_KEY_PREFIX } from '../accounts/index.js';
import { SUB_KEY_SCOPES, isSubKeyScope } from './scopes.js';
import { subKeyCounterKey } from '../quota/index.js';
import type { EventBus, SubKeyEvent } from '../../platform/events.js';

export const DEFAULT_CREDIT_LIMIT = 50;
const DAY_MS = 86_400_000;

export const createSchema = z.object({
  label: z.string({ error: 'expected a string' }).trim().max(100, 'expected at most 100 characters').optional(),
  credit_limit: z
    .number({ error: 'expected an integer' })
    .int('expected an integer')
    .min(1, 'expected at least 1')
    .max(10_000_000, 'expected at most 10000000')
    .default(DEFAULT_CREDIT_LIMIT),
  scopes: z
    .string({ error: `expected a comma-separated string of ${SUB_KEY_SCOPES.join(', ')}` })
    .optional()
    .transform((value, ctx) => {
      // Omitted: every scope a sub-key can have (our default; the spec names none). Given but naming
      // none ("", " , "): refused, so a caller who meant "no scopes" never gets all of them.
      if (value === undefined) return [...SUB_KEY_SCOPES];
      const names = value.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);
      if (names.length === 0) {
        ctx.addIssue({ code: 'custom', message: `expected at least one scope: a comma-separated subset of ${SUB_KEY_SCOPES.join(', ')} (omit scopes for all of them)` });
        return z.NEVER;
      }
      const unknown = names.filter((n) => !isSubKeyScope(n));
      if (unknown.length > 0) {
        ctx.addIssue({ code: 'custom', message: `unknown scope ${unknown.join(', ')}; expected a comma-separated subset of ${SUB_KEY_SCOPES.join(', ')}` });
        return z.NEVER;
      }
      return SUB_KEY_SCOPES.filter((s) => names.includes(s));
    }),
  expires_days: z.number({ error: 'expected an integer number of days' }).int('expected an integer number of days').min(1, 'expected at least 1').max(3650, 'expected at most 3650').optional(),
});

export type CreateSubKeyInput = z.input<typeof createSchema>;

/** Pages of the account's sub-keys (GET /api/platform/sub-keys, Account.subKeys): newest first. */
export const SUB_KEY_PAGE = { defaultSize: 100, maxSize: 200 } as const;
export const listSchema = cursorPageSchema(SUB_KEY_PAGE);

/** POST /api/platform/sub-keys/:key/revoke, revokeSubKey: the sub-key itself or its listed prefix. */
export const revokeSchema = z.object({
  key: z
    .string({ error: (issue) => (issue.input === undefined ? 'key is required: the sub-key or its prefix' : 'expected a string') })
    .trim()
    .min(1, 'key is required: the sub-key or its prefix'),
});

/** What the subKeyEvents subscription reports (the event bus's SubKeyEvent). */
export const SUB_KEY_EVENT_TYPES = ['created', 'revoked'] as const satisfies ReadonlyArray<SubKeyEvent['type']>;

export interface SubKeyUsage {
  requestsUsed: number;
  /** Null when the key has no credit limit. */
  requestsRemaining: number | null;
  lastUsedAt: Date | null;
}

export const SUB_KEY_STATUSES = ['active', 'revoked', 'expired'] as const;
export type SubKeyStatus = (typeof SUB_KEY_STATUSES)[number];

export function subKeyStatus(key: Pick<ApiKey, 'revokedAt' | 'expiresAt'>, now = new Date()): SubKeyStatus {
  if (key.revokedAt) return 'revoked';
  if (key.expiresAt && key.expiresAt <= now) return 'expired';
  return 'active';
}

/**
 * A page as Pothos' cursor connections ask Prisma for it (prismaConnectionHelpers' getQuery):
 * `take` rows (negative: the rows before the cursor, backwards), starting at the cursor's row and
 * skipping `skip` of them (1 with a cursor: the cursor's own row).
 */
export interface SubKeyPageQuery {
  take: number;
  skip: number;
  cursor?: { id: number };
}

export class SubKeysService {
  private readonly rows: ModelRows<ApiKey>;

  constructor(
    private readonly db: Database,
    private readonly maxPerAccount: number,
    private readonly events: EventBus,
    private readonly keyWatch: KeyWatch,
  ) {
    this.rows = modelRows<ApiKey>(db.prisma, 'ApiKey');
  }

  async create(actor: Actor, input: CreateSubKeyInput): Promise<{ subKey: ApiKey; secret: string }> {
    const data = parseInput(createSchema, input);
    const owned = subKeyPolicy.where(actor, 'change');
    const key = generateKey('sub');
    const subKey = await createWithinCap(this.db, {
      name: 'sub-keys',
      ownerId: actor.accountId,
      limit: this.maxPerAccount,
      count: (tx) => tx.apiKey.count({ where: { AND: owned, revokedAt: null, OR: [{ expiresAt: null }, { expiresAt: { gt: new Date() } }] } }),
      refuse: (live) => new Conflict(`this account already has ${live} live sub-keys (the limit is ${this.maxPerAccount}); revoke one first`),
      create: (tx) => tx.apiKey.create({
        data: {
          accountId: actor.accountId,
          kind: 'sub',
          prefix: key.prefix,
          secretHash: key.secretHash,
          label: data.label || null,
          scopes: data.scopes,
          requestBudget: data.credit_limit,
          expiresAt: data.expires_days ? new Date(Date.now() + data.expires_days * DAY_MS) : null,
        },
      }),
    });
    this.events.publish('subKeyEvents', actor.accountId, { type: 'created', subKeyId: subKey.id });
    return { subKey, secret: key.key };
  }

  async list(actor: Actor): Promise<ApiKey[]> {
    return this.db.prisma.apiKey.findMany({
      where: subKeyPolicy.where(actor),
      orderBy: { id: 'desc' },
    });
  }

  /**
   * A page of the account's sub-keys, newest first, and how many it has, in one statement on the
   * driver (the list's Prisma read was most of its CPU: bench/RESULTS.md). The rows are those
   * Prisma's findMany gives for the same cursor, take and skip: the cursor is the position of its
   * row (a row that does not exist gives no rows, as in Prisma); a negative take reads backwards and
   * answers in the list's order.
   */
  async page(actor: Actor | null, accountId: number, query: SubKeyPageQuery): Promise<{ rows: ApiKey[]; total: number }> {
    const checked = subKeyPolicy.checkKey(actor);
    const owner = accountId === checked.accountId ? accountId : -1; // another account's list is empty
    const backwards = query.take < 0;
    const { rows, total } = await pageAndTotal(this.db, {
      select: this.rows.columns,
      from: '"ApiKey"',
      where: `"accountId" = $1 AND "kind" = 'sub'`,
      params: [owner],
      // Prisma's cursor: the position of the cursor's row, whoever's it is (none: no rows).
      ...(query.cursor && { after: { where: `"id" ${backwards ? '>=' : '<='} (SELECT "id" FROM "ApiKey" WHERE "id" = $2)`, params: [query.cursor.id] } }),
      orderBy: `"id" ${backwards ? 'ASC' : 'DESC'}`,
      limit: Math.abs(query.take),
      offset: query.skip,
    });
    const keys = rows.map((row) => this.rows.row(row));
    return { rows: backwards ? keys.reverse() : keys, total };
  }

  /** One of the account's sub-keys (master key only), with GraphQL's selection; another's is a 404. */
  async get(actor: Actor | null, id: number, query: Pick<Prisma.ApiKeyFindFirstArgs, 'select' | 'include'> = {}): Promise<ApiKey> {
    return subKeyPolicy.findOne(actor, id, (where) => this.db.prisma.apiKey.findFirst({ ...query, where }) as Promise<ApiKey | null>);
  }

  /** `keyOrPrefix` is the full sub-key or the display prefix shown in listings. Revoking twice is fine. */
  async revoke(actor: Actor, keyOrPrefix: string): Promise<ApiKey> {
    const owned = subKeyPolicy.where(actor, 'change');
    const value = parseInput(revokeSchema, { key: keyOrPrefix }).key;
    const subKey = value.startsWith(SUB_KEY_PREFIX)
      ? await this.db.prisma.apiKey.findFirst({ where: { AND: owned, prefix: displayPrefix(value) } })
      : null;
    // A full key must match exactly; a prefix alone is enough for the owner (it is shown in listings).
    if (!subKey || (value.length > displayPrefix(value).length && !keyMatches(value, subKey.secretHash))) {
      throw new NotFound('no sub-key of this account matches; pass the sub-key or the prefix shown by GET /api/platform/sub-keys');
    }
    if (subKey.revokedAt) return subKey;
    const revoked = await this.db.prisma.apiKey.update({ where: { id: subKey.id }, data: { revokedAt: new Date() } });
    this.events.publish('subKeyEvents', actor.accountId, { type: 'revoked', subKeyId: subKey.id });
    this.keyWatch.keysChanged(actor.accountId);
    return revoked;
  }

  /** Usage of many sub-keys in one query (the GraphQL dataloader batches through here). */
  async usageOf(keys: ReadonlyArray<Pick<ApiKey, 'id' | 'requestBudget'>>): Promise<SubKeyUsage[]> {
    const keyIds = keys.map((k) => k.id);
    const rows = await this.db.query<{ key: string; count: number; last_used_at: Date }>(
      `SELECT "key", "count", "updatedAt" AT TIME ZONE 'UTC' AS last_used_at FROM "UsageCounter"
       WHERE "key" = ANY($1::text[]) AND "windowStart" = '1970-01-01'`,
      [keyIds.map(subKeyCounterKey)],
    );
    const byKey = new Map(rows.map((r) => [r.key, r]));
    return keys.map(({ id, requestBudget }) => {
      const row = byKey.get(subKeyCounterKey(id));
      const requestsUsed = row?.count ?? 0;
      return {
        requestsUsed,
        requestsRemaining: requestBudget === null ? null : Math.max(0, requestBudget - requestsUsed),
        lastUsedAt: row?.last_used_at ?? null,
      };
    });
  }
}

