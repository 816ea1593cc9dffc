// Admits a request made with an API key: who it is (AuthService) and whether its quotas allow it
// (QuotaService). A key this process verified before costs one statement (admit_request): the key's
// current state is read and the request counted together, so the hot path makes one round trip and
// a revoked, expired or suspended key is still refused at once. A key seen for the first time is
// read and verified first, then counted (two round trips, once per key and process).
import type { Database } from '../../platform/database/database.js';
import { Unauthenticated } from '../../platform/errors.js';
import { actorFrom, keyStateRefusal, type Actor, type AuthService, type KeyState } from '../accounts/index.js';
import { counterParameters, type QuotaService, type QuotaState } from './quota.service.js';

interface AdmitRow extends KeyState {
  counts: number[] | null;
  refused_at: number;
}

export interface Admitted extends QuotaState {
  actor: Actor;
}

export class AdmissionService {
  constructor(
    private readonly db: Database,
    private readonly auth: AuthService,
    private readonly quota: QuotaService,
  ) {}

  /** The key's actor with the request counted, or the 401/403/429 that refuses it (nothing counted). */
  async admit(key: string | undefined, now = new Date()): Promise<Admitted> {
    const remembered = this.auth.remembered(key);
    if (!remembered) {
      const actor = await this.auth.authenticate(key, now);
      return { actor, ...(await this.quota.consume(actor, now)) };
    }
    return this.admitRemembered(key!, remembered, now, true);
  }

  private async admitRemembered(key: string, remembered: Actor, now: Date, mayRetry: boolean): Promise<Admitted> {
    const counters = this.quota.countersFor(remembered, now);
    const rows = await this.db.query<AdmitRow>(
      'SELECT * FROM admit_request($1::int, $2::timestamp(3), $3::text[], $4::timestamp(3)[], $5::int[])',
      [remembered.keyId, now.toISOString(), ...counterParameters(counters)],
    );
    const row = rows[0];
    if (!row) {
      this.auth.forget(key);
      throw new Unauthenticated('invalid API key'); // the key's row is gone
    }
    const refusal = keyStateRefusal(remembered.keyKind, row, now);
    if (refusal) {
      this.auth.forget(key);
      throw refusal;
    }
    const actor = actorFrom(remembered, row);
    if (actor.tier !== remembered.tier || actor.requestBudget !== remembered.requestBudget) {
      // Counted under limits that have changed since: undo, and count again under the current ones.
      if (row.refused_at === 0) await this.quota.giveBackAll(counters);
      this.auth.remember(key, actor);
      if (mayRetry) return this.admitRemembered(key, actor, now, false);
      return { actor, ...(await this.quota.consume(actor, now)) };
    }
    if (actor.handle !== remembered.handle || !sameScopes(actor, remembered)) this.auth.remember(key, actor);
    return { actor, ...this.quota.judge(counters, row.counts!, row.refused_at, now) };
  }
}

function sameScopes(a: Actor, b: Actor): boolean {
  return a.scopes.size === b.scopes.size && [...a.scopes].every((scope) => b.scopes.has(scope));
}
