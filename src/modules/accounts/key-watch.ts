// Ends what a key holds open (subscriptions over graphql-ws and SSE) once the key may no longer be
// used: revoked, rotated, expired, or its account suspended. Requests need none of this (each one
// reads the key's state as it is admitted); an open subscription was admitted once and would go on.
//
// Each open subscription (or socket) registers its key here. A change to an account's keys or
// status is published on the event bus (`keyChanges`, by account id; through Redis when REDIS_URL
// is set, so every process hears it), and each process then reads the state of the keys it
// watches for that account again, from the database, and refuses those that may no longer be
// used with the error a request would get (401 or 403 and its message). Expiry needs no message:
// a timer per watched key fires at its expires_at. The event only says "look again"; the database
// says what is true, so a stale or duplicate event changes nothing.
import type { Database } from '../../platform/database/database.js';
import type { EventBus } from '../../platform/events.js';
import { Unauthenticated, type AppError } from '../../platform/errors.js';
import type { Logger } from '../../platform/logger.js';
import type { Actor } from './actor.js';
import { keyStateRefusal, type KeyState } from './auth.service.js';

interface Watcher {
  keyId: number;
  keyKind: 'master' | 'sub';
  onRefused: (error: AppError) => void;
  timer?: NodeJS.Timeout;
  done: boolean;
}

interface AccountWatch {
  watchers: Set<Watcher>;
  stop: () => void;
}

const STATES = `
SELECT k.id AS key_id, k."expiresAt" AT TIME ZONE 'UTC' AS expires_at, k."revokedAt" IS NOT NULL AS revoked,
       k.scopes, k."creditLimit" AS credit_limit, a.status, a.handle, a.tier
FROM "ApiKey" k JOIN "Account" a ON a.id = k."accountId"
WHERE k.id = ANY($1::int[])`;

/** setTimeout's longest delay (about 24.8 days); a later expiry re-arms. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export class KeyWatch {
  private readonly accounts = new Map<number, AccountWatch>();

  constructor(
    private readonly db: Database,
    private readonly events: EventBus,
    private readonly logger: Logger,
  ) {}

  /** Tells every process to look again at the account's keys (after a revocation, a rotation, a status change). */
  keysChanged(accountId: number): void {
    this.events.publish('keyChanges', accountId, { accountId });
  }

  /**
   * Calls `onRefused` once, with the error a request with this key would get, when the key may no
   * longer be used. Returns the function that stops watching (call it when the subscription ends).
   */
  watch(actor: Pick<Actor, 'accountId' | 'keyId' | 'keyKind'>, onRefused: (error: AppError) => void): () => void {
    const watcher: Watcher = { keyId: actor.keyId, keyKind: actor.keyKind, onRefused, done: false };
    let account = this.accounts.get(actor.accountId);
    if (!account) {
      account = { watchers: new Set(), stop: this.listen(actor.accountId) };
      this.accounts.set(actor.accountId, account);
    }
    account.watchers.add(watcher);
    // Once now: the key may have changed between its admission and this registration, and the
    // state read arms the expiry timer.
    void this.check(actor.accountId, [watcher]);
    return () => this.unwatch(actor.accountId, watcher);
  }

  /** How many keys this process watches (tests). */
  get size(): number {
    let n = 0;
    for (const account of this.accounts.values()) n += account.watchers.size;
    return n;
  }

  private unwatch(accountId: number, watcher: Watcher): void {
    watcher.done = true;
    clearTimeout(watcher.timer);
    const account = this.accounts.get(accountId);
    if (!account?.watchers.delete(watcher) || account.watchers.size > 0) return;
    this.accounts.delete(accountId);
    account.stop();
  }

  /** Follows the account's key changes on the event bus until stopped. */
  private listen(accountId: number): () => void {
    const changes = this.events.subscribe('keyChanges', accountId);
    void (async () => {
      for await (const _change of changes) {
        const account = this.accounts.get(accountId);
        if (account) await this.check(accountId, [...account.watchers]);
      }
    })().catch((error: unknown) => this.logger.warn({ err: error, accountId }, 'following key changes failed'));
    return () => void changes.return?.();
  }

  private async check(accountId: number, watchers: Watcher[], now = new Date()): Promise<void> {
    const live = watchers.filter((w) => !w.done);
    if (live.length === 0) return;
    let rows: Array<KeyState & { key_id: number }>;
    try {
      rows = await this.db.query<KeyState & { key_id: number }>(STATES, [[...new Set(live.map((w) => w.keyId))]]);
    } catch (error) {
      this.logger.warn({ err: error, accountId }, 'reading the state of watched keys failed');
      return;
    }
    const byId = new Map(rows.map((r) => [r.key_id, r]));
    for (const watcher of live) {
      if (watcher.done) continue;
      const state = byId.get(watcher.keyId);
      // A key that is gone altogether is refused as an unknown one would be.
      const refusal = state ? keyStateRefusal(watcher.keyKind, state, now) : new Unauthenticated('invalid API key');
      if (refusal) {
        this.unwatch(accountId, watcher);
        watcher.onRefused(refusal);
        continue;
      }
      if (state?.expires_at) this.arm(accountId, watcher, state.expires_at);
    }
  }

  private arm(accountId: number, watcher: Watcher, expiresAt: Date): void {
    clearTimeout(watcher.timer);
    const delay = Math.max(0, expiresAt.getTime() - Date.now());
    // At the expiry the key is judged as of its expiry (a timer may fire a millisecond early); a
    // capped timer for a later expiry only looks again and re-arms.
    const judgedAt = () => (delay > MAX_TIMER_MS ? new Date() : new Date(Math.max(Date.now(), expiresAt.getTime())));
    watcher.timer = setTimeout(() => void this.check(accountId, [watcher], judgedAt()), Math.min(delay, MAX_TIMER_MS));
    watcher.timer.unref();
  }
}
