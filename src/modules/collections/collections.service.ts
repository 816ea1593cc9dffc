// Collections (spec "Media library"): curated sets of the account's media items, and their share
// links (spec "Share link (collection)"). A shared collection is visible at /gallery/<share_token>,
// openly or behind a password. The rules:
// - sharing creates a fresh random token every time: the previous link (and every gallery cookie
//   issued for it) stops working;
// - a password, when given, always protects the link; without one, `public: true` (the default)
//   opens the link to anyone who has it and `public: false` turns sharing off (token cleared);
// - the password is stored only as a salted scrypt hash and compared in constant time.
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import type { Collection, MediaItem, Prisma } from '../../generated/prisma/client.js';
import type { Database } from '../../platform/database/database.js';
import { parseInput } from '../../platform/validation.js';
import type { Actor } from '../accounts/index.js';
import { collectionPolicy } from './collections.access.js';
import { mediaItemPolicy } from '../media/index.js';
import { addItemsSchema, collectionSchema, shareSchema } from './collections.input.js';

export type { Collection };

/** 24 random bytes → 32 base64url characters. */
const TOKEN_BYTES = 24;
export const SHARE_TOKEN_PATTERN = /^[A-Za-z0-9_-]{32,128}$/;

export function galleryPath(token: string): string {
  return `/gallery/${token}`;
}

export interface ShareResult {
  collection: Collection;
  /** null when sharing was turned off. */
  token: string | null;
}

// ---- passwords -------------------------------------------------------------------------------

/** scrypt cost: N = 2^14, r = 8, p = 1 (16 MiB, ~50 ms): the node:crypto defaults, written down. */
const SCRYPT = { N: 16384, r: 8, p: 1, keylen: 32, maxmem: 64 * 1024 * 1024 };

function scryptAsync(password: string, salt: Buffer, keylen: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => scrypt(password, salt, keylen, options, (error, key) => (error ? reject(error) : resolve(key))));
}

/** `scrypt$N$r$p$<salt b64url>$<hash b64url>`: the parameters travel with the hash. */
export async function hashSharePassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password.normalize('NFC'), salt, SCRYPT.keylen, { N: SCRYPT.N, r: SCRYPT.r, p: SCRYPT.p, maxmem: SCRYPT.maxmem });
  return ['scrypt', SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** Constant-time check of a password against a stored hash; false for any malformed hash. */
export async function verifySharePassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, saltText, hashText] = stored.split('$');
  if (scheme !== 'scrypt' || !saltText || !hashText) return false;
  const N = Number(n);
  const params = { N, r: Number(r), p: Number(p), maxmem: SCRYPT.maxmem };
  if (![params.N, params.r, params.p].every((v) => Number.isSafeInteger(v) && v > 0) || N > 1 << 20) return false;
  const expected = Buffer.from(hashText, 'base64url');
  if (expected.length < 16) return false;
  if (password.length > 1000) return false;
  try {
    const actual = await scryptAsync(password.normalize('NFC'), Buffer.from(saltText, 'base64url'), expected.length, params);
    return timingSafeEqual(actual, expected);
  } catch {
    return false; // parameters scrypt refuses (memory bound): not a hash of ours
  }
}

// ---- the service ---------------------------------------------------------------------------------

export class CollectionsService {
  constructor(private readonly db: Database) {}

  async create(actor: Actor, input: { name?: unknown; description?: unknown }): Promise<Collection> {
    const data = parseInput(collectionSchema, input);
    return this.db.prisma.collection.create({ data: { accountId: actor.accountId, name: data.name, description: data.description || null } });
  }

  /** One of the caller's collections; another account's is a 404 like a missing one. */
  async get(actor: Actor | null, id: number, query: Pick<Prisma.CollectionFindFirstArgs, 'select' | 'include'> = {}): Promise<Collection> {
    return collectionPolicy.findOne(actor, id, (where) => this.db.prisma.collection.findFirst({ ...query, where }) as Promise<Collection | null>);
  }

  async delete(actor: Actor, id: number): Promise<Collection> {
    const collection = await this.get(actor, id);
    await this.db.prisma.collection.delete({ where: { id } });
    return collection;
  }

  /**
   * Adds media items, all or nothing: an id that is not one of the caller's items (missing, or
   * another account's) fails the whole request with a 404 and nothing is added. Items already in
   * the collection are left where they are. Trashed items may be added; they stay hidden (API
   * and gallery) until restored.
   */
  async addItems(actor: Actor, id: number, input: { media_ids?: unknown }): Promise<{ collection: Collection; added: number; alreadyIn: number }> {
    const { media_ids } = parseInput(addItemsSchema, input);
    const ids = [...new Set(media_ids)];
    await this.get(actor, id);
    const owned = await this.db.prisma.mediaItem.findMany({ where: { id: { in: ids }, AND: mediaItemPolicy.where(actor) }, select: { id: true } });
    mediaItemPolicy.requireAll(ids, owned.map((m) => m.id));

    return this.db.prisma.$transaction(async (tx) => {
      const present = await tx.collectionItem.findMany({ where: { collectionId: id, mediaId: { in: ids } }, select: { mediaId: true } });
      const presentIds = new Set(present.map((p) => p.mediaId));
      const fresh = ids.filter((m) => !presentIds.has(m));
      if (fresh.length > 0) {
        const last = await tx.collectionItem.aggregate({ where: { collectionId: id }, _max: { position: true } });
        const start = (last._max.position ?? -1) + 1;
        // skipDuplicates: a concurrent request that added the same item first is not an error.
        await tx.collectionItem.createMany({ data: fresh.map((mediaId, i) => ({ collectionId: id, mediaId, position: start + i })), skipDuplicates: true });
      }
      const collection = await tx.collection.update({ where: { id }, data: { updatedAt: new Date() } });
      return { collection, added: fresh.length, alreadyIn: ids.length - fresh.length };
    });
  }

  /**
   * Shares (or unshares) a collection. See the header of this file for the rules; every call that
   * leaves the collection shared issues a new token.
   */
  async share(actor: Actor, id: number, input: { public?: unknown; password?: unknown }): Promise<ShareResult> {
    const options = parseInput(shareSchema, input);
    await this.get(actor, id);
    if (!options.public && options.password === undefined) {
      const collection = await this.db.prisma.collection.update({ where: { id }, data: { shareToken: null, sharePublic: false, sharePasswordHash: null } });
      return { collection, token: null };
    }
    const passwordHash = options.password === undefined ? null : await hashSharePassword(options.password);
    const token = randomBytes(TOKEN_BYTES).toString('base64url');
    const collection = await this.db.prisma.collection.update({
      where: { id },
      // sharePublic: the link opens without a password.
      data: { shareToken: token, sharePublic: passwordHash === null, sharePasswordHash: passwordHash },
    });
    return { collection, token };
  }

  // ---- the public gallery (no actor: the token is the capability) ----

  /** The shared collection behind a token, or null (unknown, revoked or malformed token). */
  async byShareToken(token: string): Promise<Collection | null> {
    if (!SHARE_TOKEN_PATTERN.test(token)) return null;
    return this.db.prisma.collection.findUnique({ where: { shareToken: token } });
  }

  /** Checks a gallery password; false when the collection has none set (nothing to unlock). */
  async checkPassword(collection: Collection, password: string): Promise<boolean> {
    if (!collection.sharePasswordHash) return false;
    return verifySharePassword(password, collection.sharePasswordHash);
  }

  /** A page of the collection's items for the gallery: active media only, in collection order. */
  async galleryItems(collectionId: number, page: { limit: number; offset: number }): Promise<{ items: MediaItem[]; total: number }> {
    const where = { collectionId, media: { trashedAt: null } };
    const [rows, total] = await Promise.all([
      this.db.prisma.collectionItem.findMany({ where, include: { media: true }, orderBy: [{ position: 'asc' }, { mediaId: 'asc' }], take: page.limit, skip: page.offset }),
      this.db.prisma.collectionItem.count({ where }),
    ]);
    return { items: rows.map((r) => r.media), total };
  }
}
