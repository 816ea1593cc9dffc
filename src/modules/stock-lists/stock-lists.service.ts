// Stock lists (spec "Media library" and "Community"): saved stock photos (URLs with attribution)
// that can be shared with other accounts and downloaded into the library. Access:
// - the owner may do everything;
// - a member (joined through the list's share token) may read the list, add items, remove the
//   items it added, save items into its own library and see the members; it may not delete or
//   share the list;
// - any other account gets a 404, exactly as for a list that does not exist.
// "Saved" is per account: an item counts as saved for the caller when the caller's library holds an
// active media item whose source URL is the item's URL (or, for the owner, the item's
// savedMediaId). Every download goes through the SSRF-safe fetcher.
import { randomBytes } from 'node:crypto';
import type { Prisma, StockItem, StockList, StockListMember } from '../../generated/prisma/client.js';
import type { Database } from '../../platform/database/database.js';
import { AppError, Conflict, Forbidden, NotFound } from '../../platform/errors.js';
import { withCapLock } from '../../platform/database/caps.js';
import type { SafeFetcher } from '../../platform/http/safe-fetch.js';
import type { Logger } from '../../platform/logger.js';
import { parseInput } from '../../platform/validation.js';
import type { Actor } from '../accounts/index.js';
import { stockItemPolicy, stockListPolicy } from './stock-lists.access.js';
import { mediaItemPolicy } from '../media/index.js';
import type { MediaService } from '../media/index.js';
import { addItemsSchema, listSchema, shareSchema } from './stock-lists.input.js';

export type { StockItem, StockList, StockListMember };

export const STOCK_LIST_ROLES = ['owner', 'member'] as const;
export type StockListRole = (typeof STOCK_LIST_ROLES)[number];

/** Most items one list holds (adding beyond is a 409). */
export const MAX_ITEMS_PER_LIST = 1000;
/** Most items one save call downloads; `remaining` tells the caller to call again. */
export const SAVE_BATCH = 50;
/** Downloads running at once during a save. */
const SAVE_CONCURRENCY = 4;
const TOKEN_BYTES = 24;
export const JOIN_TOKEN_PATTERN = /^[A-Za-z0-9_-]{32,128}$/;

export function joinPath(token: string): string {
  return `/api/community/lists/join/${token}`;
}

/** Where saved items go: the media library (passed per call; the two services are built side by side). */
export type Library = Pick<MediaService, 'ingest'>;

export interface ReadableList {
  list: StockList;
  role: StockListRole;
}

export const SAVE_STATUSES = ['saved', 'duplicate', 'failed'] as const;
export type SaveStatus = (typeof SAVE_STATUSES)[number];

export interface SaveItemResult {
  item: StockItem;
  status: SaveStatus;
  mediaId: number | null;
  error: string | null;
}

export interface SaveResult {
  list: StockList;
  results: SaveItemResult[];
  saved: number;
  duplicates: number;
  failed: number;
  /** Items that were already in the caller's library: not downloaded again. */
  alreadySaved: number;
  /** Not-yet-saved items left for another call (beyond SAVE_BATCH). */
  remaining: number;
}

export class StockListsService {
  constructor(
    private readonly db: Database,
    private readonly fetcher: SafeFetcher,
    private readonly logger: Logger,
    private readonly maxBytes: number,
  ) {}

  async create(actor: Actor, input: { name?: unknown; description?: unknown }): Promise<StockList> {
    const data = parseInput(listSchema, input);
    return this.db.prisma.stockList.create({ data: { accountId: actor.accountId, name: data.name, description: data.description || null } });
  }

  /** A list the caller owns or is a member of; anything else is a 404. */
  async readable(actor: Actor, id: number): Promise<ReadableList> {
    const list = await this.find(actor, id);
    return { list, role: list.accountId === actor.accountId ? 'owner' : 'member' };
  }

  /** The lists the caller owns or joined, newest first (a page of GraphQL's connection). */
  async listReadable(actor: Actor | null, query: Pick<Prisma.StockListFindManyArgs, 'select' | 'include' | 'take' | 'skip' | 'cursor'>): Promise<StockList[]> {
    return this.db.prisma.stockList.findMany({ ...query, where: stockListPolicy.where(actor), orderBy: { id: 'desc' } }) as Promise<StockList[]>;
  }

  async countReadable(actor: Actor | null): Promise<number> {
    return this.db.prisma.stockList.count({ where: stockListPolicy.where(actor) });
  }

  /** A list the caller may read (owner or member) with GraphQL's selection; anything else is a 404. */
  async find(actor: Actor | null, id: number, query: Pick<Prisma.StockListFindFirstArgs, 'select' | 'include'> = {}): Promise<StockList> {
    return stockListPolicy.findOne(actor, id, (where) => this.db.prisma.stockList.findFirst({ ...query, where }) as Promise<StockList | null>);
  }

  /** A list the caller owns: members get a 403 naming the rule, everyone else a 404. */
  async owned(actor: Actor, id: number, action: string): Promise<StockList> {
    const { list, role } = await this.readable(actor, id);
    if (role !== 'owner') throw new Forbidden(`only the owner of stock list ${id} can ${action}`);
    return list;
  }

  async delete(actor: Actor, id: number): Promise<StockList> {
    const list = await this.owned(actor, id, 'delete it');
    await this.db.prisma.stockList.delete({ where: { id } });
    return list;
  }

  /**
   * Adds items (owner or member). A URL already in the list is not added again; the answer counts
   * it in `alreadyIn`. Only the URL is checked here; it is fetched (through the SSRF-safe fetcher)
   * only when saved. thumbnail_url is stored and handed back, never fetched by the service.
   */
  async addItems(actor: Actor, id: number, input: { items?: unknown }): Promise<{ list: StockList; added: StockItem[]; alreadyIn: number }> {
    const { items } = parseInput(addItemsSchema, input);
    await this.readable(actor, id);
    // The same URL twice in one request: the first one counts.
    const byUrl = new Map<string, (typeof items)[number]>();
    for (const item of items) if (!byUrl.has(item.url)) byUrl.set(item.url, item);
    const unique = [...byUrl.values()];
    // The per-list cap's lock (platform/database/caps.ts): two adds at once cannot both fit under it.
    return withCapLock(this.db, { name: 'stock-list-items', ownerId: id }, async (tx) => {
      const present = await tx.stockItem.findMany({ where: { listId: id, url: { in: unique.map((i) => i.url) } }, select: { url: true } });
      const presentUrls = new Set(present.map((p) => p.url));
      const fresh = unique.filter((item) => !presentUrls.has(item.url));
      const count = await tx.stockItem.count({ where: { listId: id } });
      if (count + fresh.length > MAX_ITEMS_PER_LIST) {
        throw new Conflict(`stock list ${id} would hold ${count + fresh.length} items; the most is ${MAX_ITEMS_PER_LIST}`, 'items');
      }
      const added = await tx.stockItem.createManyAndReturn({
        data: fresh.map((item) => ({
          listId: id,
          url: item.url,
          title: item.title || null,
          attribution: item.attribution || null,
          source: item.source || null,
          thumbnailUrl: item.thumbnail_url ?? null,
          addedBy: actor.accountId,
        })),
        skipDuplicates: true,
      });
      added.sort((a, b) => a.id - b.id);
      const list = await tx.stockList.update({ where: { id }, data: { updatedAt: new Date() } });
      return { list, added, alreadyIn: items.length - added.length };
    });
  }

  /** Removes an item: the owner any item, a member only the items it added. */
  async removeItem(actor: Actor, itemId: number): Promise<StockItem> {
    // Members see the item (404 for everyone else); the owner, or the member who added it, removes it.
    const item = await stockItemPolicy.findOne(actor, itemId, (where) => this.db.prisma.stockItem.findFirst({ where }));
    const removable = await this.db.prisma.stockItem.count({ where: { id: itemId, AND: stockItemPolicy.where(actor, 'change') } });
    if (removable === 0) throw new Forbidden(`stock item ${itemId} was added by another account; only the list owner or that account can remove it`);
    await this.db.prisma.stockItem.delete({ where: { id: itemId } });
    return item;
  }

  /**
   * The caller's saved copy of each item (media id), or null: an active item of the caller's
   * library whose source URL is the item's URL, or (the owner only) the item's savedMediaId.
   */
  async savedMediaIds(actor: Actor, itemIds: readonly number[]): Promise<Map<number, number | null>> {
    const items = await this.db.prisma.stockItem.findMany({ where: { id: { in: [...itemIds] } }, include: { list: { select: { accountId: true } } } });
    const owned = items.filter((i) => i.list.accountId === actor.accountId && i.savedMediaId !== null).map((i) => i.savedMediaId!);
    const media = items.length
      ? await this.db.prisma.mediaItem.findMany({
          where: { AND: mediaItemPolicy.where(actor), trashedAt: null, OR: [{ sourceUrl: { in: items.map((i) => i.url) } }, { id: { in: owned } }] },
          select: { id: true, sourceUrl: true },
          orderBy: { id: 'asc' },
        })
      : [];
    const ids = new Set(media.map((m) => m.id));
    const bySource = new Map<string, number>();
    for (const m of media) if (m.sourceUrl && !bySource.has(m.sourceUrl)) bySource.set(m.sourceUrl, m.id);
    const result = new Map<number, number | null>();
    for (const item of items) {
      const own = item.list.accountId === actor.accountId && item.savedMediaId !== null && ids.has(item.savedMediaId) ? item.savedMediaId : null;
      result.set(item.id, own ?? bySource.get(item.url) ?? null);
    }
    return result;
  }

  /**
   * Downloads every item not yet saved for the caller (owner or member) into the caller's library,
   * at most SAVE_BATCH per call, a few at a time. Each item succeeds or fails on its own: a refused
   * or failing URL (SSRF rules, HTTP errors, not an image, too large) is reported in its result
   * and the others go on.
   */
  async save(actor: Actor, id: number, library: Library): Promise<SaveResult> {
    const { list, role } = await this.readable(actor, id);
    const items = await this.db.prisma.stockItem.findMany({ where: { listId: id }, orderBy: { id: 'asc' } });
    const saved = await this.savedMediaIds(actor, items.map((i) => i.id));
    const pending = items.filter((i) => saved.get(i.id) == null);
    const batch = pending.slice(0, SAVE_BATCH);
    const results: SaveItemResult[] = new Array(batch.length);
    // Downloads run side by side; storing runs one at a time, so two URLs with the same bytes
    // meet the library's duplicate check one after the other (one item, then "duplicate").
    let storing: Promise<unknown> = Promise.resolve();
    const oneAtATime: Library = {
      ingest: (...args) => {
        const run = storing.then(() => library.ingest(...args));
        storing = run.catch(() => undefined);
        return run;
      },
    };
    let next = 0;
    const worker = async () => {
      while (next < batch.length) {
        const index = next++;
        results[index] = await this.saveOne(actor, batch[index]!, role, oneAtATime);
      }
    };
    await Promise.all(Array.from({ length: Math.min(SAVE_CONCURRENCY, batch.length) }, worker));
    const count = (status: SaveStatus) => results.filter((r) => r.status === status).length;
    return {
      list,
      results,
      saved: count('saved'),
      duplicates: count('duplicate'),
      failed: count('failed'),
      alreadySaved: items.length - pending.length,
      remaining: pending.length - batch.length,
    };
  }

  private async saveOne(actor: Actor, item: StockItem, role: StockListRole, library: Library): Promise<SaveItemResult> {
    try {
      const response = await this.fetcher.fetch(item.url, { maxBytes: this.maxBytes });
      if (response.status < 200 || response.status > 299) {
        return { item, status: 'failed', mediaId: null, error: `${item.url} answered HTTP ${response.status}` };
      }
      const { media, duplicate } = await library.ingest(
        actor,
        { body: response.body, filename: filenameOf(response.url, item.id), sourceUrl: item.url, attribution: item.attribution ?? undefined },
        { name: item.title ?? undefined },
      );
      // The item's own record of a saved copy is the owner's (members' copies are found by URL).
      if (role === 'owner') await this.db.prisma.stockItem.update({ where: { id: item.id }, data: { savedMediaId: media.id } });
      return { item, status: duplicate ? 'duplicate' : 'saved', mediaId: media.id, error: null };
    } catch (error) {
      if (error instanceof AppError && error.status < 500) return { item, status: 'failed', mediaId: null, error: error.message };
      this.logger.error({ err: error, stockItemId: item.id }, 'saving a stock item failed');
      return { item, status: 'failed', mediaId: null, error: 'internal error while saving this item' };
    }
  }

  // ---- sharing (spec "Community": lists) ----

  /**
   * The list's join token (owner only), made on first use. `rotate` replaces it: the old join link
   * stops working; accounts that already joined stay members.
   */
  async share(actor: Actor, id: number, input: { rotate?: unknown } = {}): Promise<{ list: StockList; token: string }> {
    const { rotate } = parseInput(shareSchema, input);
    const list = await this.owned(actor, id, 'share it');
    if (list.shareToken && !rotate) return { list, token: list.shareToken };
    const token = randomBytes(TOKEN_BYTES).toString('base64url');
    return { list: await this.db.prisma.stockList.update({ where: { id }, data: { shareToken: token } }), token };
  }

  /** Joins the list behind a token. Joining again is fine (the first join stands); the owner cannot join. */
  async join(actor: Actor, token: string): Promise<{ list: StockList; member: StockListMember; alreadyMember: boolean }> {
    const list = JOIN_TOKEN_PATTERN.test(token) ? await this.db.prisma.stockList.findUnique({ where: { shareToken: token } }) : null;
    if (!list) throw new NotFound('no shared stock list for this token (it may have been replaced)');
    if (list.accountId === actor.accountId) throw new Conflict(`you own stock list ${list.id}; only other accounts join it`);
    const key = { listId_accountId: { listId: list.id, accountId: actor.accountId } };
    const existing = await this.db.prisma.stockListMember.findUnique({ where: key });
    if (existing) return { list, member: existing, alreadyMember: true };
    const member = await this.db.prisma.stockListMember.upsert({ where: key, create: { listId: list.id, accountId: actor.accountId }, update: {} });
    return { list, member, alreadyMember: false };
  }
}

/** A file name for the library: the URL's last path segment, else stock-<id>. */
export function filenameOf(url: string, itemId: number): string {
  try {
    const segment = decodeURIComponent(new URL(url).pathname.split('/').pop() ?? '');
    // No separators (an encoded %2F or %5C) and no control characters.
    const last = segment.replace(/[/\\]|\p{Cc}/gu, '').trim();
    if (last && !/^\.+$/.test(last)) return last.slice(0, 200);
  } catch {
    // fall through
  }
  return `stock-${itemId}`;
}
