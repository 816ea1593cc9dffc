// Signed URLs: capability links to files (library originals, thumbnails, transformations) that a
// browser can load without an API key. The signature covers the path and every parameter, so nobody
// can ask for another object, size or format; the key is URL_SIGNING_KEY, or generated once into
// DATA_DIR/url-signing-key (mode 0600). Several processes must share one key (set the variable).
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Forbidden } from './errors.js';
import { writeSecretFile } from './secrets-files.js';

export const BAD_SIGNATURE = 'invalid or missing URL signature: this link was not issued by this service for exactly these parameters';

/** How many signatures a process remembers: a page of 50 media items signs about 285 URLs. */
const REMEMBERED_SIGNATURES = 20_000;

export class UrlSigner {
  // A signature depends on nothing but the key, the path and the parameters, and a library item's
  // URLs stay the same until its file changes: the same URLs are signed again on every page.
  private readonly signatures = new LRUCache<string, string>({ max: REMEMBERED_SIGNATURES });

  constructor(private readonly key: string) {}

  static fromConfig(dataDir: string, configured?: string): UrlSigner {
    if (configured) return new UrlSigner(configured);
    const file = join(dataDir, 'url-signing-key');
    if (!existsSync(file)) writeSecretFile(file, `${randomBytes(32).toString('base64url')}\n`);
    return new UrlSigner(readFileSync(file, 'utf8').trim());
  }

  /** `path?params&sig=...` with the parameters in a fixed order. */
  sign(path: string, params: Record<string, string | number> = {}): string {
    const query = canonical(params);
    const unsigned = `${path}?${query}`;
    let sig = this.signatures.get(unsigned);
    if (sig === undefined) {
      sig = this.signature(path, query);
      this.signatures.set(unsigned, sig);
    }
    return `${path}?${query ? `${query}&` : ''}sig=${sig}`;
  }

  /** Throws the 403 every signed route answers when `verify` says no. */
  require(path: string, params: Record<string, unknown>): void {
    if (!this.verify(path, params)) throw new Forbidden(BAD_SIGNATURE);
  }

  /** True when `sig` matches the path and the other parameters exactly. */
  verify(path: string, params: Record<string, unknown>): boolean {
    const { sig, ...rest } = params;
    if (typeof sig !== 'string' || !/^[A-Za-z0-9_-]{43}$/.test(sig)) return false;
    const strings: Record<string, string> = {};
    for (const [name, value] of Object.entries(rest)) {
      if (typeof value !== 'string') return false;
      strings[name] = value;
    }
    const expected = Buffer.from(this.signature(path, canonical(strings)));
    return timingSafeEqual(expected, Buffer.from(sig));
  }

  /**
   * The id and kind of a signed link to a stored file (`/community/<id>/<variant>`,
   * `/wiki/<kind>/<id>`): the 403 `invalid or missing signature` unless the id is an integer, the
   * kind one of `kinds` and the signature over `pathOf(kind, id)` good.
   */
  verifyFileLink<K extends string>(link: { id: string; kind: string; query: Record<string, unknown> }, kinds: readonly K[], pathOf: (kind: K, id: number) => string): { id: number; kind: K } {
    const id = Number(link.id);
    const refused = new Forbidden('invalid or missing signature');
    if (!Number.isSafeInteger(id) || !kinds.includes(link.kind as K)) throw refused;
    const kind = link.kind as K;
    if (!this.verify(pathOf(kind, id), link.query)) throw refused;
    return { id, kind };
  }

  private signature(path: string, query: string): string {
    return createHmac('sha256', this.key).update(`${path}?${query}`).digest('base64url');
  }
}

/** The version (`v`) a link to a stored file names: a replaced file gets a new key, so its old links stop working. */
export function storageKeyVersion(storageKey: string): string {
  return createHash('sha256').update(storageKey).digest('hex').slice(0, 16);
}

function canonical(params: Record<string, string | number>): string {
  return Object.keys(params)
    .sort()
    .map((name) => `${encodeURIComponent(name)}=${encodeURIComponent(String(params[name]))}`)
    .join('&');
}
