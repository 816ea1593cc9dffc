// Turns a presented API key into an Actor, or refuses it with 401 (missing, unknown, revoked,
// expired) or 403 (account inactive or suspended). One indexed query per request; no cache, so a
// rotation or a revocation takes effect on the very next request on every process.
import type { Database } from '../../platform/database/database.js';
import { Forbidden, Unauthenticated } from '../../platform/errors.js';
import { DUMMY_HASH, displayPrefix, keyMatches, looksLikeKey } from './api-key.js';
import type { Actor } from './actor.js';
import { SUB_KEY_SCOPES, isSubKeyScope } from '../api-keys/index.js';
import { MISSING_KEY_MESSAGE } from '../access/index.js';

interface KeyRow {
  key_id: number;
  kind: 'master' | 'sub';
  secret_hash: string;
  scopes: string[] | null;
  credit_limit: number | null;
  expires_at: Date | null;
  revoked: boolean;
  account_id: number;
  handle: string;
  status: 'active' | 'inactive' | 'suspended';
  tier: string;
}

const LOOKUP = `
SELECT k.id AS key_id, k.kind, k."secretHash" AS secret_hash, k.scopes, k."creditLimit" AS credit_limit,
       k."expiresAt" AT TIME ZONE 'UTC' AS expires_at, k."revokedAt" IS NOT NULL AS revoked,
       a.id AS account_id, a.handle, a.status, a.tier
FROM "ApiKey" k JOIN "Account" a ON a.id = k."accountId"
WHERE k.prefix = $1`;


export class AuthService {
  constructor(private readonly db: Database) {}

  async authenticate(key: string | undefined, now = new Date()): Promise<Actor> {
    if (!key) throw new Unauthenticated(MISSING_KEY_MESSAGE);
    const rows = looksLikeKey(key) ? await this.db.query<KeyRow>(LOOKUP, [displayPrefix(key)]) : [];
    const row = rows[0];
    const matches = keyMatches(key, row?.secret_hash ?? DUMMY_HASH);
    if (!row || !matches) throw new Unauthenticated('invalid API key');
    if (row.revoked) {
      throw new Unauthenticated(row.kind === 'sub' ? 'this sub-key has been revoked' : 'this API key has been rotated and no longer works');
    }
    if (row.expires_at && row.expires_at <= now) {
      throw new Unauthenticated(`this sub-key expired at ${row.expires_at.toISOString()}`);
    }
    if (row.status !== 'active') {
      throw new Forbidden(`account @${row.handle} is ${row.status}; contact the service administrator`);
    }
    return {
      accountId: row.account_id,
      handle: row.handle,
      tier: row.tier,
      keyId: row.key_id,
      keyKind: row.kind,
      scopes: new Set(row.kind === 'master' ? SUB_KEY_SCOPES : (row.scopes ?? []).filter(isSubKeyScope)),
      requestBudget: row.credit_limit,
    };
  }
}
