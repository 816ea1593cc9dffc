// The public gallery of a shared collection (GET and POST /gallery/<token>): who may see it is
// decided here, the HTTP router only renders. The token is the capability; a password-protected
// link also needs an access cookie, which a right password earns.
//
// - The access cookie is signed with the URL signing key over the token, its expiry and a
//   fingerprint of the password hash, so sharing again (new token) or a new password voids it.
// - Password attempts are counted in the database before the slow scrypt check, per client address
//   and link (MAX_FAILURES in FAILURE_WINDOW_MS) and per link from all clients together
//   (LINK_MAX_FAILURES: guesses spread over many addresses), then 429 until the window ends; exact
//   under concurrency (a burst of guesses gets exactly the limit's checks) and across restarts and
//   processes. A right password clears the client's count and gives its unit of the link's back.
import { createHash } from 'node:crypto';
import type { UrlSigner } from '../../platform/url-signer.js';
import type { QuotaService } from '../quota/index.js';
import type { CollectionsService, Collection } from './collections.service.js';
import { galleryPath } from './collections.service.js';

export const GALLERY_COOKIE = 'gallery_access';
export const ACCESS_HOURS = 12;
/** Password attempts allowed per client address and link in FAILURE_WINDOW_MS before a 429. */
export const MAX_FAILURES = 10;
/** Wrong password attempts allowed per link from all clients together in FAILURE_WINDOW_MS. */
export const LINK_MAX_FAILURES = 50;
export const FAILURE_WINDOW_MS = 15 * 60_000;

export type GalleryView = { state: 'missing' } | { state: 'locked'; collection: Collection } | { state: 'open'; collection: Collection };

export type UnlockResult =
  | { state: 'missing' }
  | { state: 'not-protected' }
  | { state: 'blocked'; retryAfterSeconds: number }
  | { state: 'wrong' }
  | { state: 'unlocked'; cookie: { name: string; value: string; path: string; maxAgeMs: number } };

export class GalleryService {
  constructor(
    private readonly collections: CollectionsService,
    private readonly quota: Pick<QuotaService, 'take' | 'forget' | 'giveBack'>,
    private readonly signer: UrlSigner,
  ) {}

  /** What the link shows the holder of these cookies (values of the Cookie header named GALLERY_COOKIE). */
  async view(token: string, cookies: string[], now = Date.now()): Promise<GalleryView> {
    const collection = await this.shared(token);
    if (!collection) return { state: 'missing' };
    if (collection.sharePasswordHash && !cookies.some((value) => this.cookieOpens(collection, value, now))) return { state: 'locked', collection };
    return { state: 'open', collection };
  }

  /** Checks a password for the link; `client` is the caller's address (the counter's key). */
  async unlock(token: string, password: string, client: string, now = new Date()): Promise<UnlockResult> {
    const collection = await this.shared(token);
    if (!collection) return { state: 'missing' };
    if (!collection.sharePasswordHash) return { state: 'not-protected' };
    // The attempt is counted before the check: concurrent guesses cannot outrun the limit.
    const counter = `gallery:${collection.id}:${client}`;
    const linkCounter = `gallery:${collection.id}`;
    const attempt = await this.quota.take(
      [
        { key: counter, limit: MAX_FAILURES },
        { key: linkCounter, limit: LINK_MAX_FAILURES },
      ],
      FAILURE_WINDOW_MS,
      now,
    );
    if (!attempt.taken) return { state: 'blocked', retryAfterSeconds: attempt.retryAfterSeconds };
    if (!password || !(await this.collections.checkPassword(collection, password))) return { state: 'wrong' };
    await this.quota.forget(counter, FAILURE_WINDOW_MS, now);
    await this.quota.giveBack(linkCounter, FAILURE_WINDOW_MS, now);
    const expires = Math.floor(now.getTime() / 1000) + ACCESS_HOURS * 3600;
    return { state: 'unlocked', cookie: { name: GALLERY_COOKIE, value: this.accessCookie(collection, expires), path: galleryPath(token), maxAgeMs: ACCESS_HOURS * 3_600_000 } };
  }

  /** `<expires unix seconds>.<signature over the token, the expiry and the password fingerprint>`. */
  accessCookie(collection: Collection, expires: number): string {
    const signed = this.signer.sign(accessPath(collection), { exp: expires, k: passwordFingerprint(collection) });
    return `${expires}.${signed.slice(signed.lastIndexOf('sig=') + 4)}`;
  }

  private cookieOpens(collection: Collection, value: string, now: number): boolean {
    const match = /^(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(value);
    if (!match || Number(match[1]) <= Math.floor(now / 1000)) return false;
    return this.signer.verify(accessPath(collection), { exp: match[1], k: passwordFingerprint(collection), sig: match[2] });
  }

  /** The collection behind the token while it is shared, else null. */
  private async shared(token: string): Promise<Collection | null> {
    const collection = await this.collections.byShareToken(token);
    if (!collection) return null;
    // Defensive: a token without a password must have been shared publicly.
    if (!collection.sharePasswordHash && !collection.sharePublic) return null;
    return collection;
  }
}

const accessPath = (collection: Collection) => `${galleryPath(collection.shareToken!)}/access`;

/** Changes whenever the password does: cookies issued for an older password stop working. */
function passwordFingerprint(collection: Collection): string {
  return createHash('sha256').update(collection.sharePasswordHash ?? '').digest('base64url').slice(0, 16);
}
