// Answers of the shim's list routes, kept to be served again (ANSWER_CACHE_MB, least recently used
// go first). An answer is served again only to the same key, for the same input and base URL, while
// the account's data version of the route's domain is still the one read when it was made: the
// version is raised by database triggers in the transaction of every change (the DataVersion
// migration), and each request reads it in its admission statement. So a kept answer is never
// older than the request's own admission, in any process, and checking it costs no round trip.
import { LRUCache } from 'lru-cache';
import type { Context } from '../src/graphql/context.js';
import type { CachedRoute } from './route.js';

interface Kept {
  version: number;
  body: string;
  /** When the answer would change with nothing else changed (ms since the epoch; Infinity: never). */
  validUntil: number;
}

/** JavaScript strings hold two bytes a character; the rest is the entry's own bookkeeping. */
const entrySize = (key: string, kept: Kept) => 2 * (key.length + kept.body.length) + 100;

export class AnswerCache {
  private readonly kept: LRUCache<string, Kept> | undefined;

  constructor(maxBytes: number) {
    this.kept = maxBytes > 0 ? new LRUCache<string, Kept>({ maxSize: maxBytes, sizeCalculation: (kept, key) => entrySize(key, kept) }) : undefined;
  }

  /** Where an answer of this route to this request is kept, or undefined when it may not be kept. */
  place(route: CachedRoute, context: Context, variables: Record<string, unknown>): { key: string; version: number } | undefined {
    if (!this.kept || !context.actor || !context.dataVersions) return undefined;
    // A domain never changed has no row yet: version 0.
    const version = context.dataVersions[route.cache.domain] ?? 0;
    return { key: `${route.method} ${route.path}\n${context.actor.keyId}\n${context.baseUrl}\n${JSON.stringify(variables)}`, version };
  }

  get(place: { key: string; version: number }, now = Date.now()): string | undefined {
    const kept = this.kept?.get(place.key);
    return kept && kept.version === place.version && now < kept.validUntil ? kept.body : undefined;
  }

  set(place: { key: string; version: number }, body: string, validUntil: Date | null): void {
    const kept = { version: place.version, body, validUntil: validUntil?.getTime() ?? Infinity };
    // A slow request must not put back an answer older than one already kept.
    if ((this.kept?.peek(place.key)?.version ?? -1) > place.version) return;
    // An answer larger than the whole cache is not kept (lru-cache would refuse it noisily).
    if (this.kept && entrySize(place.key, kept) <= this.kept.maxSize) this.kept.set(place.key, kept);
  }
}

/** The first of these times still to come (ISO strings or null), or null when none is. */
export function earliestFuture(times: ReadonlyArray<string | null>, now = Date.now()): Date | null {
  let earliest = Infinity;
  for (const time of times) {
    const ms = time === null ? NaN : Date.parse(time);
    if (ms > now && ms < earliest) earliest = ms;
  }
  return earliest === Infinity ? null : new Date(earliest);
}
