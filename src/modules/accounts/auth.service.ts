// Turns a presented API key into an Actor, or refuses it with 401 (missing, unknown, revoked,
// expired) or 403 (account inactive or suspended). The first request with a key reads its row by the
// key's display prefix and compares digests; the verified actor is then remembered (bounded, by the
// key's digest, never the key itself), so later requests skip that read. Remembering is not
// trusting: every request reads the key's state again, inside the statement that counts it
// (AdmissionService in the quota module), so a rotation, a revocation, an expiry or a suspension
// refuses the very next request on every process, with no message between processes to wait for.
import { LRUCache } from 'lru-cache';
import type { Database } from '../../platform/database/database.js';
import { Forbidden, Unauthenticated, type AppError } from '../../platform/errors.js';
import { DUMMY_HASH, displayPrefix, hashKey, keyMatches, looksLikeKey } from './api-key.js';
import type { Actor } from './actor.js';
import { SUB_KEY_SCOPES, isSubKeyScope } from '../api-keys/index.js';
import { MISSING_KEY_MESSAGE } from '../access/index.js';

/** A key's and its account's state, as the database has it now. */
export interface KeyState {
  revoked: boolean;
  expires_at: Date | null;
  status: string;
  handle: string;
  tier: string;
  scopes: string[] | null;
  credit_limit: number | null;
}

interface KeyRow extends KeyState {
  key_id: number;
  kind: 'master' | 'sub';
  secret_hash: string;
  account_id: number;
}

const LOOKUP = `
SELECT k.id AS key_id, k.kind, k."secretHash" AS secret_hash, k.scopes, k."creditLimit" AS credit_limit,
       k."expiresAt" AT TIME ZONE 'UTC' AS expires_at, k."revokedAt" IS NOT NULL AS revoked,
       a.id AS account_id, a.handle, a.status, a.tier
FROM "ApiKey" k JOIN "Account" a ON a.id = k."accountId"
WHERE k.prefix = $1`;

/** How many verified keys a process remembers (the least recently used go first). */
const REMEMBERED_KEYS = 10_000;

export class AuthService {
  private readonly verified = new LRUCache<string, Actor>({ max: REMEMBERED_KEYS });

  constructor(private readonly db: Database) {}

  async authenticate(key: string | undefined, now = new Date()): Promise<Actor> {
    if (!key) throw new Unauthenticated(MISSING_KEY_MESSAGE);
    const rows = looksLikeKey(key) ? await this.db.query<KeyRow>(LOOKUP, [displayPrefix(key)]) : [];
    const row = rows[0];
    const matches = keyMatches(key, row?.secret_hash ?? DUMMY_HASH);
    if (!row || !matches) throw new Unauthenticated('invalid API key');
    const refusal = keyStateRefusal(row.kind, row, now);
    if (refusal) throw refusal;
    const actor = actorFrom({ accountId: row.account_id, keyId: row.key_id, keyKind: row.kind }, row);
    this.verified.set(row.secret_hash, actor);
    return actor;
  }

  /** The actor of a key verified earlier (its state still to be checked), if this process remembers it. */
  remembered(key: string | undefined): Actor | undefined {
    return key && looksLikeKey(key) ? this.verified.get(hashKey(key)) : undefined;
  }

  /** Remembers the key's actor as its state now reads. */
  remember(key: string, actor: Actor): void {
    this.verified.set(hashKey(key), actor);
  }

  forget(key: string): void {
    this.verified.delete(hashKey(key));
  }
}

/** Why a key in this state may not be used now (401 or 403), or null when it may. */
export function keyStateRefusal(kind: 'master' | 'sub', state: KeyState, now: Date): AppError | null {
  if (state.revoked) return new Unauthenticated(kind === 'sub' ? 'this sub-key has been revoked' : 'this API key has been rotated and no longer works');
  if (state.expires_at && state.expires_at <= now) return new Unauthenticated(`this sub-key expired at ${state.expires_at.toISOString()}`);
  if (state.status !== 'active') return new Forbidden(`account @${state.handle} is ${state.status}; contact the service administrator`);
  return null;
}

/** The actor of a key, from what never changes for it (ids and kind) and its current state. */
export function actorFrom(key: Pick<Actor, 'accountId' | 'keyId' | 'keyKind'>, state: KeyState): Actor {
  return {
    ...key,
    handle: state.handle,
    tier: state.tier,
    scopes: new Set(key.keyKind === 'master' ? SUB_KEY_SCOPES : (state.scopes ?? []).filter(isSubKeyScope)),
    requestBudget: state.credit_limit,
  };
}
