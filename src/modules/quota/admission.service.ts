// Admits a request made with an API key: who it is (AuthService) and whether its quotas allow it
// (QuotaService). A key this process verified before costs no more than one statement
// (admit_requests): the key's current state is read and the request counted together, so a revoked,
// expired or suspended key is still refused at once, in every process. Requests that arrive for
// the same key while its statement is out wait for it and then go together in the next one: under
// load one round trip admits many requests, and the answer is the one they would have had one by
// one (the first that fit pass, the rest get the 429 of the limit they hit). A key seen for the
// first time is read and verified first, then counted (two round trips, once per key and process).
import type { Database } from '../../platform/database/database.js';
import { Unauthenticated } from '../../platform/errors.js';
import { actorFrom, keyStateRefusal, type Actor, type AuthService, type KeyState } from '../accounts/index.js';
import { counterParameters, type Counter, type QuotaService, type QuotaState } from './quota.service.js';

interface AdmitRow extends KeyState {
  counts: number[] | null;
  granted: number;
  refused_at: number;
  data_versions: DataVersions | null;
}

/** The account's data versions by domain (the DataVersion migration): raised by every change. */
export type DataVersions = Readonly<Record<string, number>>;

export interface Admitted extends QuotaState {
  actor: Actor;
  /** As the admission statement read them; absent when the request was admitted another way. */
  dataVersions?: DataVersions;
}

interface Waiting {
  resolve(admitted: Admitted): void;
  reject(error: unknown): void;
  /** Already sent again once because the key's limits changed under it. */
  recounted: boolean;
}

/** The requests of one key: those in the statement that is out, and those waiting for the next. */
interface KeyQueue {
  sending: boolean;
  waiting: Waiting[];
}

/** Most requests one statement admits (a bound on one batch's work under a flood). */
const MAX_BATCH = 256;

export class AdmissionService {
  private readonly queues = new Map<string, KeyQueue>();

  constructor(
    private readonly db: Database,
    private readonly auth: AuthService,
    private readonly quota: QuotaService,
  ) {}

  /** The key's actor with the request counted, or the 401/403/429 that refuses it (nothing counted). */
  async admit(key: string | undefined, now = new Date()): Promise<Admitted> {
    if (!this.auth.remembered(key)) {
      const actor = await this.auth.authenticate(key, now);
      return { actor, ...(await this.quota.consume(actor, now)) };
    }
    return new Promise<Admitted>((resolve, reject) => this.enqueue(key!, [{ resolve, reject, recounted: false }]));
  }

  private enqueue(key: string, requests: Waiting[]): void {
    let queue = this.queues.get(key);
    if (!queue) {
      queue = { sending: false, waiting: [] };
      this.queues.set(key, queue);
    }
    queue.waiting.push(...requests);
    if (!queue.sending) void this.send(key, queue);
  }

  /** Sends the key's waiting requests in one statement, and again while more arrived meanwhile. */
  private async send(key: string, queue: KeyQueue): Promise<void> {
    queue.sending = true;
    while (queue.waiting.length > 0) {
      const batch = queue.waiting.splice(0, MAX_BATCH);
      try {
        await this.admitBatch(key, batch);
      } catch (error) {
        for (const request of batch) request.reject(error);
      }
    }
    queue.sending = false;
    this.queues.delete(key);
  }

  private async admitBatch(key: string, batch: Waiting[]): Promise<void> {
    const remembered = this.auth.remembered(key);
    const now = new Date();
    if (!remembered) {
      // Forgotten since it queued (refused, or pushed out of the cache): the slow path, one by one.
      for (const request of batch) this.admit(key, now).then(request.resolve, request.reject);
      return;
    }
    const counters = this.quota.countersFor(remembered, now);
    const rows = await this.db.query<AdmitRow>(
      'SELECT * FROM admit_requests($1::int, $2::timestamp(3), $3::text[], $4::timestamp(3)[], $5::int[], $6::int)',
      [remembered.keyId, now.toISOString(), ...counterParameters(counters), batch.length],
    );
    const row = rows[0];
    if (!row) {
      this.auth.forget(key);
      return refuseAll(batch, new Unauthenticated('invalid API key')); // the key's row is gone
    }
    const refusal = keyStateRefusal(remembered.keyKind, row, now);
    if (refusal) {
      this.auth.forget(key);
      return refuseAll(batch, refusal);
    }
    const actor = actorFrom(remembered, row);
    if (actor.tier !== remembered.tier || actor.requestBudget !== remembered.requestBudget) {
      // Counted under limits that have changed since: undo, and count again under the current ones.
      if (row.granted > 0) await this.quota.giveBackAll(counters, row.granted);
      this.auth.remember(key, actor);
      return this.recount(key, actor, batch, now);
    }
    if (actor.handle !== remembered.handle || !sameScopes(actor, remembered)) this.auth.remember(key, actor);
    this.answer(batch, actor, counters, row, now);
  }

  /** Each request's answer: the first `granted` passed (seeing the counts as they stood after it), the rest were refused. */
  private answer(batch: Waiting[], actor: Actor, counters: Counter[], row: AdmitRow, now: Date): void {
    const countsAfter = row.counts!;
    batch.forEach((request, index) => {
      try {
        const passed = index < row.granted;
        const counts = passed ? countsAfter.map((count) => count - (row.granted - 1 - index)) : countsAfter;
        request.resolve({ actor, dataVersions: row.data_versions ?? undefined, ...this.quota.judge(counters, counts, passed ? 0 : row.refused_at, now) });
      } catch (error) {
        request.reject(error);
      }
    });
  }

  /** Requests counted under limits that changed: sent again once, under the limits read just now. */
  private recount(key: string, actor: Actor, batch: Waiting[], now: Date): void {
    const again = batch.filter((request) => !request.recounted);
    for (const request of batch) {
      if (request.recounted) this.quota.consume(actor, now).then((state) => request.resolve({ actor, ...state }), request.reject);
    }
    if (again.length > 0) this.enqueue(key, again.map((request) => ({ ...request, recounted: true })));
  }
}

function refuseAll(batch: Waiting[], error: unknown): void {
  for (const request of batch) request.reject(error);
}

function sameScopes(a: Actor, b: Actor): boolean {
  return a.scopes.size === b.scopes.size && [...a.scopes].every((scope) => b.scopes.has(scope));
}
