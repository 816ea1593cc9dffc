// The media library (spec "Media library"): ingest files (upload, saved stock photos), read and
// search them, change their metadata and move them through active → trashed → purged. Every
// method checks ownership: another account's ids are a 404, single or in bulk.
import { Prisma } from '../../generated/prisma/client.js';
import type { MediaItem } from '../../generated/prisma/client.js';
import type { Database } from '../../platform/database/database.js';
import { Conflict, Forbidden, NotFound, Unavailable } from '../../platform/errors.js';
import type { UrlSigner } from '../../platform/url-signer.js';
import { MEDIA_VARIANTS, linkStillValid, mediaFilePath, type MediaVariant } from './media-urls.js';
import { isUniqueViolation } from '../../platform/database/errors.js';
import { modelRows, type ModelRows } from '../../platform/database/model-rows.js';
import { pageAndTotal } from '../../platform/database/page-and-total.js';
import type { BlobStore } from '../../platform/storage/blob-store.js';
import { parseInput } from '../../platform/validation.js';
import type { Actor } from '../accounts/index.js';
import { folderPolicy, mediaItemPolicy, mediaItemSql } from './media.access.js';
import { hexToLab, parseHexColour, processUpload, type ProcessLimits } from '../images/index.js';
import { buildSearchQuery } from './search-query.js';
import { bulkSchema, mirrorSchema, pageSchema, searchSchema, tagChangeSchema, updateSchema, uploadSchema } from './media.input.js';
import type { z } from 'zod';

export type { MediaItem };

/**
 * Lab distance (CIE76, ΔE*ab) under which a dominant colour counts as near the one searched for;
 * results come nearest first. 50 keeps shades of a hue (red and brick red) and drops other hues.
 */
export const COLOUR_MATCH_DISTANCE = 50;

/** Every file of an item is stored under this prefix: `<base>.<ext>`, `<base>.thumb.webp`, `<base>.original.heic`. */
function blobBase(item: Pick<MediaItem, 'accountId' | 'sha256'>): string {
  return `media/${item.accountId}/${item.sha256}`;
}

/**
 * Where the uploaded bytes of a HEIC/HEIF item are kept (its served file is a JPEG made from them).
 * Derived from the row, so no column records it; no file route serves it.
 */
function originalKeyOf(item: Pick<MediaItem, 'accountId' | 'sha256' | 'format' | 'mime'>): string | null {
  return item.format === 'heif' && item.mime === 'image/jpeg' ? `${blobBase(item)}.original.heic` : null;
}

export interface IngestFile {
  body: Buffer;
  /** The uploaded file's own name: the default media name. */
  filename: string;
  sourceUrl?: string;
  attribution?: string;
}

export interface IngestResult {
  media: MediaItem;
  /** The same bytes were already in the library: that item is answered instead of a new one. */
  duplicate: boolean;
}

/** Tags, caption and text for auto_tag; provided by the vision module when it is present (the account pays as for any analysis). */
export type AutoTagger = (image: Buffer, accountId: number) => Promise<{ labels: string[]; caption: string; text: string }>;

/**
 * Checks that the image at a URL is the item's own photo, throwing the caller's 4xx when it is not;
 * provided by the mirrors module (fetch, hash, compare).
 */
export type MirrorVerifier = (item: MediaItem, url: string) => Promise<void>;

export interface Page {
  items: MediaItem[];
  total: number;
  limit: number;
  offset: number;
}

export class MediaService {
  private autoTagger: AutoTagger | null = null;
  private mirrorCheck: MirrorVerifier | null = null;

  constructor(
    private readonly db: Database,
    private readonly blobs: BlobStore,
    private readonly limits: ProcessLimits,
    /** Checks the signed file links it hands out (GET /media/<id>/<variant>); tests without files omit it. */
    private readonly signer?: UrlSigner,
  ) {
    this.rows = modelRows<MediaItem>(db.prisma, 'MediaItem');
  }

  /** The library's page on the driver (list). */
  private readonly rows: ModelRows<MediaItem>;

  useAutoTagger(tagger: AutoTagger): void {
    this.autoTagger = tagger;
  }

  useMirrorCheck(check: MirrorVerifier): void {
    this.mirrorCheck = check;
  }

  async ingest(actor: Actor, file: IngestFile, input: z.input<typeof uploadSchema> = {}): Promise<IngestResult> {
    const options = parseInput(uploadSchema, input);
    const processed = await processUpload(file.body, this.limits);
    const existing = await this.db.prisma.mediaItem.findFirst({ where: { accountId: actor.accountId, sha256: processed.sha256 }, orderBy: { id: 'asc' } });
    if (existing) {
      const media = existing.trashedAt ? await this.db.prisma.mediaItem.update({ where: { id: existing.id }, data: { trashedAt: null } }) : existing;
      return { media, duplicate: true };
    }
    if (options.folder_id) await this.folderOf(actor, options.folder_id);

    let tags = options.tags;
    let caption: string | null = null;
    let extractedText: string | null = null;
    if (options.auto_tag) {
      if (!this.autoTagger) throw new Conflict('auto_tag: image analysis is not available on this server', 'auto_tag');
      if (processed.kind === 'image') {
        const analysis = await this.autoTagger(processed.stored.body, actor.accountId);
        tags = [...new Set([...tags, ...analysis.labels.map((l) => l.toLowerCase())])].slice(0, 50);
        caption = analysis.caption || null;
        extractedText = analysis.text || null;
      }
    }

    const base = blobBase({ accountId: actor.accountId, sha256: processed.sha256 });
    const storageKey = `${base}.${processed.stored.ext}`;
    await this.blobs.put(storageKey, processed.stored.body, { contentType: processed.stored.mime, size: processed.stored.body.length });
    if (processed.original) {
      const originalKey = originalKeyOf({ accountId: actor.accountId, sha256: processed.sha256, format: processed.format, mime: processed.stored.mime });
      if (!originalKey) throw new Error(`ingest: no key to keep a ${processed.original.mime} original under`);
      await this.blobs.put(originalKey, processed.original.body, { contentType: processed.original.mime, size: processed.original.body.length });
    }
    let thumbnailKey: string | null = null;
    if (processed.thumbnail) {
      thumbnailKey = `${base}.thumb.webp`;
      await this.blobs.put(thumbnailKey, processed.thumbnail.body, { contentType: processed.thumbnail.mime, size: processed.thumbnail.body.length });
    }
    const [l, a, b] = processed.dominantColour?.lab ?? [null, null, null];
    let media: MediaItem;
    try {
      media = await this.db.prisma.mediaItem.create({
      data: {
        accountId: actor.accountId,
        name: options.name ?? (file.filename || `upload.${processed.stored.ext}`),
        group: options.group,
        folderId: options.folder_id,
        kind: processed.kind,
        mime: processed.stored.mime,
        ext: processed.stored.ext,
        bytes: processed.stored.body.length,
        width: processed.width,
        height: processed.height,
        format: processed.format,
        sha256: processed.sha256,
        phash: processed.phash,
        blockhash: processed.blockhash,
        lowInformation: processed.lowInformation ?? false,
        dominantHex: processed.dominantColour?.hex,
        colourL: l,
        colourA: a,
        colourB: b,
        caption,
        extractedText,
        tags,
        tagText: tags.join(' '),
        storageKey,
        thumbnailKey,
        sourceUrl: file.sourceUrl,
        attribution: file.attribution,
      },
      });
    } catch (error) {
      // The same bytes arrived twice at once: the other upload won, and this one is its duplicate.
      if (!isUniqueViolation(error)) throw error;
      const winner = await this.db.prisma.mediaItem.findUniqueOrThrow({ where: { accountId_sha256: { accountId: actor.accountId, sha256: processed.sha256 } } });
      return { media: winner, duplicate: true };
    }
    return { media, duplicate: false };
  }

  async get(actor: Actor | null, id: number): Promise<MediaItem> {
    return mediaItemPolicy.findOne(actor, id, (where) => this.db.prisma.mediaItem.findFirst({ where }));
  }

  async list(actor: Actor, input: { limit?: number; offset?: number }, trashed = false): Promise<Page> {
    const { limit, offset } = parseInput(pageSchema, input);
    const conditions = Prisma.join([mediaItemSql(actor), trashed ? Prisma.sql`"trashedAt" IS NOT NULL` : Prisma.sql`"trashedAt" IS NULL`], ' AND ');
    // The page and its count in one statement on the driver: the library's most read list, with nothing
    // kept its first answer after every change (ANSWER_CACHE_MB), where Prisma's compile of the same
    // findMany was most of its cost.
    const { rows, total } = await pageAndTotal(this.db, {
      select: this.rows.columns,
      from: '"MediaItem"',
      where: conditions.text,
      orderBy: trashed ? '"trashedAt" DESC, "id" DESC' : '"id" DESC',
      params: conditions.values,
      limit,
      offset,
    });
    return { items: rows.map(this.rows.row), total, limit, offset };
  }

  /**
   * Full-text search (PostgreSQL, ranked: whole-word matches of a prefixed last word first, then
   * name, then tags, then caption and extracted text; words and prefixes as in search-query.ts) with
   * filters; `color` keeps items whose dominant colour is perceptually near (CIE Lab distance) and
   * ranks the nearest first.
   */
  async search(actor: Actor, input: z.input<typeof searchSchema>): Promise<Page & { query: string | null }> {
    const f = parseInput(searchSchema, input);
    const conditions: Prisma.Sql[] = [mediaItemSql(actor), Prisma.sql`"trashedAt" IS NULL`];
    // Keys to order by before the id (newest first), most significant first.
    const order: Array<{ key: Prisma.Sql; desc: boolean }> = [];
    if (f.q) {
      // Word and prefix rules in search-query.ts; the tsquery text is built from words only.
      const text = buildSearchQuery(f.q);
      if (!text) conditions.push(Prisma.sql`false`);
      else {
        const query = Prisma.sql`to_tsquery('english', ${text.match})`;
        // querytree 'T': only exclusions left after stop words, which no index can answer.
        conditions.push(Prisma.sql`"searchVector" @@ ${query} AND querytree(${query}) <> 'T'`);
        if (text.exact) order.push({ key: Prisma.sql`"searchVector" @@ to_tsquery('english', ${text.exact})`, desc: true });
        // ts_rank: ts_rank_cd's weights at a third of its cost or less per match (ranking is most of the time of a query that matches thousands).
        order.push({ key: Prisma.sql`ts_rank("searchVector", ${query})`, desc: true });
      }
    }
    if (f.tag) conditions.push(Prisma.sql`"tags" @> ARRAY[${f.tag}]::text[]`); // GIN-indexed
    if (f.group) conditions.push(Prisma.sql`"group" = ${f.group}`);
    if (f.folder_id) conditions.push(Prisma.sql`"folderId" = ${f.folder_id}`);
    if (f.type) conditions.push(Prisma.sql`"kind" = ${f.type}`);
    if (f.color) {
      const [l, a, b] = hexToLab(parseHexColour(f.color));
      const distance = Prisma.sql`sqrt(power("colourL" - ${l}, 2) + power("colourA" - ${a}, 2) + power("colourB" - ${b}, 2))`;
      // The box around the colour lets the partial colour index answer without reading the table.
      const r = COLOUR_MATCH_DISTANCE;
      conditions.push(Prisma.sql`"colourL" BETWEEN ${l - r} AND ${l + r} AND "colourA" BETWEEN ${a - r} AND ${a + r} AND "colourB" BETWEEN ${b - r} AND ${b + r}`);
      conditions.push(Prisma.sql`${distance} <= ${r}`);
      order.push({ key: distance, desc: false });
    }
    const [ids, total] = order.length > 0 ? await this.orderedPage(conditions, order, f) : await this.newestPage(conditions, f);
    const found = ids.length > 0 ? await this.db.prisma.mediaItem.findMany({ where: { id: { in: ids } } }) : [];
    const byId = new Map(found.map((m) => [m.id, m]));
    return { items: ids.map((id) => byId.get(id)!).filter(Boolean), total, limit: f.limit, offset: f.offset, query: f.q ?? null };
  }

  /**
   * The page and its count in one statement (pageAndTotal): the page reads matches newest first and
   * stops at its last row, where a count(*) OVER () would make PostgreSQL read and sort every match first.
   */
  private async newestPage(conditions: Prisma.Sql[], page: { limit: number; offset: number }): Promise<[number[], number]> {
    const where = Prisma.join(conditions, ' AND ');
    const { rows, total } = await pageAndTotal<{ id: number }>(this.db, { select: '"id"', from: '"MediaItem"', where: where.text, orderBy: '"id" DESC', params: where.values, ...page });
    return [rows.map((r) => r.id), total];
  }

  /**
   * Ordered by rank or colour distance, every match is read and ordered anyway: one pass keeps the
   * keys of all matches, counts them and takes the page (a quarter fewer milliseconds on PGlite and on
   * a busy PostgreSQL than a second statement reading every match again to count it).
   */
  private async orderedPage(conditions: Prisma.Sql[], order: Array<{ key: Prisma.Sql; desc: boolean }>, page: { limit: number; offset: number }): Promise<[number[], number]> {
    const keys = order.map((o, i) => Prisma.sql`${o.key} AS ${Prisma.raw(`k${i}`)}`);
    const orderBy = order.map((o, i) => Prisma.raw(`k${i} ${o.desc ? 'DESC' : 'ASC'}`));
    const [row] = await this.db.prisma.$queryRaw<Array<{ total: bigint; ids: number[] }>>`
      WITH matches AS MATERIALIZED (SELECT "id", ${Prisma.join(keys, ', ')} FROM "MediaItem" WHERE ${Prisma.join(conditions, ' AND ')})
      SELECT (SELECT count(*) FROM matches) AS total,
        ARRAY(SELECT "id" FROM matches ORDER BY ${Prisma.join(orderBy, ', ')}, "id" DESC LIMIT ${page.limit} OFFSET ${page.offset}) AS ids`;
    return [row?.ids ?? [], Number(row?.total ?? 0)];
  }

  async update(actor: Actor, id: number, input: z.input<typeof updateSchema>): Promise<MediaItem> {
    const changes = parseInput(updateSchema, input);
    await this.get(actor, id);
    if (changes.folder_id) await this.folderOf(actor, changes.folder_id);
    return this.db.prisma.mediaItem.update({
      where: { id },
      data: {
        name: changes.name,
        group: changes.group,
        folderId: changes.folder_id,
        caption: changes.caption,
        ...(changes.tags ? { tags: changes.tags, tagText: changes.tags.join(' ') } : {}),
      },
    });
  }

  async changeTags(actor: Actor, id: number, input: z.input<typeof tagChangeSchema>): Promise<MediaItem> {
    const { action, tags } = parseInput(tagChangeSchema, input);
    const media = await this.get(actor, id);
    const next =
      action === 'replace' ? tags : action === 'add' ? [...new Set([...media.tags, ...tags])] : media.tags.filter((t) => !tags.includes(t));
    return this.db.prisma.mediaItem.update({ where: { id }, data: { tags: next, tagText: next.join(' ') } });
  }

  async trash(actor: Actor, id: number): Promise<MediaItem> {
    const media = await this.get(actor, id);
    return media.trashedAt ? media : this.db.prisma.mediaItem.update({ where: { id }, data: { trashedAt: new Date() } });
  }

  async restore(actor: Actor, id: number): Promise<MediaItem> {
    const media = await this.get(actor, id);
    return media.trashedAt ? this.db.prisma.mediaItem.update({ where: { id }, data: { trashedAt: null } }) : media;
  }

  /** Deletes a trashed item for good: its row, then its files (unless another row shares them). */
  async purge(actor: Actor, id: number): Promise<MediaItem> {
    const media = await this.get(actor, id);
    if (!media.trashedAt) throw new Conflict(`media item ${id} is not in the trash; delete it first (DELETE /api/media/${id})`);
    await this.db.prisma.mediaItem.delete({ where: { id } });
    await this.deleteFilesIfUnused([media]);
    return media;
  }

  /** One action over many items, all or nothing: an id that is not the caller's fails the whole request. */
  async bulk(actor: Actor, input: z.input<typeof bulkSchema>): Promise<{ action: string; items: MediaItem[] }> {
    const request = parseInput(bulkSchema, input);
    const ids = [...new Set(request.ids)];
    const owned = await this.db.prisma.mediaItem.findMany({ where: { id: { in: ids }, AND: mediaItemPolicy.where(actor, 'change') }, orderBy: { id: 'asc' } });
    mediaItemPolicy.requireAll(ids, owned.map((m) => m.id));
    const where = { id: { in: ids } };
    const prisma = this.db.prisma;
    switch (request.action) {
      case 'list':
        return { action: 'list', items: owned };
      case 'trash':
        await prisma.mediaItem.updateMany({ where: { ...where, trashedAt: null }, data: { trashedAt: new Date() } });
        break;
      case 'restore':
        await prisma.mediaItem.updateMany({ where, data: { trashedAt: null } });
        break;
      case 'move':
        if (request.folder_id) await this.folderOf(actor, request.folder_id);
        await prisma.mediaItem.updateMany({ where, data: { folderId: request.folder_id ?? null } });
        break;
      case 'tag':
        await prisma.$transaction(
          owned.map((m) => {
            const tags = [...new Set([...m.tags, ...request.tags!])].slice(0, 50);
            return prisma.mediaItem.update({ where: { id: m.id }, data: { tags, tagText: tags.join(' ') } });
          }),
        );
        break;
      case 'purge': {
        const active = owned.filter((m) => !m.trashedAt).map((m) => m.id);
        if (active.length > 0) throw new Conflict(`media items ${active.join(', ')} are not in the trash; trash them first`);
        await prisma.mediaItem.deleteMany({ where });
        await this.deleteFilesIfUnused(owned);
        return { action: 'purge', items: owned };
      }
    }
    return { action: request.action, items: await prisma.mediaItem.findMany({ where, orderBy: { id: 'asc' } }) };
  }

  /**
   * Records another URL where the item's image lives (POST /api/media/mirror), once the mirror check
   * found the same photo there; adding a recorded URL again answers the list without a new check.
   */
  async addMirror(actor: Actor, input: { media_id?: unknown; url?: unknown }) {
    const { media_id: mediaId, url } = parseInput(mirrorSchema, input);
    const item = await this.get(actor, mediaId);
    const known = await this.db.prisma.mediaMirror.findUnique({ where: { mediaId_url: { mediaId, url } } });
    if (!known) {
      if (!this.mirrorCheck) throw new Unavailable('mirror checks are not available on this server');
      await this.mirrorCheck(item, url);
      await this.db.prisma.mediaMirror.upsert({ where: { mediaId_url: { mediaId, url } }, create: { mediaId, url }, update: {} });
    }
    return this.db.prisma.mediaMirror.findMany({ where: { mediaId }, orderBy: { id: 'asc' } });
  }

  async folderOf(actor: Actor, folderId: number) {
    return folderPolicy.findOne(actor, folderId, (where) => this.db.prisma.mediaFolder.findFirst({ where }));
  }

  /**
   * Opens the file behind a signed link (no key: the signature over the id and variant is the
   * capability, and `v`, the start of the content hash, must be the item's current one).
   */
  async openSigned(idText: string, variantText: string, query: Record<string, unknown>) {
    const id = Number(idText);
    if (!Number.isSafeInteger(id) || !MEDIA_VARIANTS.includes(variantText as MediaVariant)) throw new Forbidden('invalid or missing signature');
    const variant = variantText as MediaVariant;
    if (!this.signer?.verify(mediaFilePath(id, variant), query)) throw new Forbidden('invalid or missing signature');
    if (!linkStillValid(query)) throw new Forbidden('this link has expired');
    const opened = await this.openFile(id, variant);
    if (query.v !== opened.media.sha256.slice(0, 16)) {
      opened.body.destroy();
      throw new Forbidden('this link is for an earlier file');
    }
    return opened;
  }

  /** Opens a stored file of an item for serving (callers have checked a signature or the owner). */
  async openFile(id: number, variant: 'original' | 'thumbnail') {
    const media = await this.db.prisma.mediaItem.findUnique({ where: { id } });
    const key = variant === 'original' ? media?.storageKey : media?.thumbnailKey;
    if (!media || !key || media.trashedAt) throw new NotFound(`no ${variant} for media item ${id}`);
    const blob = await this.blobs.get(key);
    if (!blob) throw new NotFound(`the file of media item ${id} is no longer stored`);
    return { media, ...blob };
  }

  private async deleteFilesIfUnused(items: MediaItem[]): Promise<void> {
    for (const item of items) {
      const stillUsed = await this.db.prisma.mediaItem.count({ where: { storageKey: item.storageKey } });
      if (stillUsed > 0) continue;
      await this.blobs.delete(item.storageKey);
      if (item.thumbnailKey) await this.blobs.delete(item.thumbnailKey);
      const originalKey = originalKeyOf(item);
      if (originalKey) await this.blobs.delete(originalKey);
    }
  }
}
