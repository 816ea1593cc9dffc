// The unified ranked image search (spec "Search": POST /api/images/search). Tiers, scores and
// de-duplication: ranking.ts. What each query form does:
// - `query`: full text inside the tiers (the library's word rules, search-query.ts), and the
//   stock libraries;
// - `image_data` / `image_url`: the image's near copies by perceptual hash (the caller's library by
//   blockhash and pHash; community items and wiki photos through their image objects), plus
//   keywords from the vision port (labels and OCR words) when no `query` is sent. The analysis is
//   paid as any analysis: by the caller's account (external providers, while it can pay), free
//   (the local provider) without a key.
// Without a key only the public tiers are searched. With one, the key must carry `search`, and the
// private tiers are the key's own account's, never another's.
import type { Database } from '../../platform/database/database.js';
import type { SafeFetcher } from '../../platform/http/safe-fetch.js';
import type { Logger } from '../../platform/logger.js';
import type { UrlSigner } from '../../platform/url-signer.js';
import { AppError, InvalidInput } from '../../platform/errors.js';
import { parseInput } from '../../platform/validation.js';
import { SCOPE, requireKey } from '../access/index.js';
import type { Actor } from '../accounts/index.js';
import type { ImageObjectsService, Likeness } from '../image-objects/index.js';
import { fetchImageBytes, processUpload } from '../images/index.js';
import { buildSearchQuery, signedMediaPath } from '../media/index.js';
import { decodeBase64 } from '../vision/index.js';
import type { AtlasEntry, AtlasService } from '../wiki/index.js';
import { distinct, ranked, type Candidate, type RankedImage, type SearchSource } from './ranking.js';
import { SearchQueries, type CommunityRow, type LibraryRow, type TextMatch, type WikiRow } from './search.queries.js';
import { searchRequestSchema, type SearchOrientation } from './search.input.js';
import type { StockSearchService } from './stock/stock-search.service.js';

/** Keywords taken from an image: its labels first, then words it shows. */
export const MAX_IMAGE_KEYWORDS = 6;
/** Image objects a reverse search looks at (nearest first). */
const NEAREST_OBJECTS = 50;
/** Separate atlas searches for an image's keywords (the atlas needs every word of one query). */
const ATLAS_KEYWORD_QUERIES = 4;

export interface SearchDeps {
  db: Database;
  atlas: AtlasService;
  imageObjects: ImageObjectsService;
  stock: StockSearchService;
  fetcher: SafeFetcher;
  signer: UrlSigner;
  /** Signed public links (paths) of community items' and wiki photos' files. */
  links: { community(item: { id: number; storageKey: string }): string; wikiPhoto(id: number, storageKey: string): string };
  /** Labels and text of an image; `payer` pays for external providers (none: the free local one only). */
  analyze(image: Buffer, payer: number | undefined): Promise<{ labels: string[]; text: string }>;
  limits: { maxBytes: number; maxPixels: number };
  logger: Logger;
}

export interface SearchAnswer {
  /** The words searched: the query, or the keywords taken from the image ('' when there were none). */
  query: string;
  isAuthenticatedSearch: boolean;
  images: RankedImage[];
  sourcesActive: SearchSource[];
  sourcesFailed: SearchSource[];
  /** Distinct images found before the page was cut to `limit`. */
  totalFound: number;
}

interface Probe extends Likeness {
  phash: string;
  /** The image as stored-format bytes, for the vision port. */
  image: Buffer;
}

export class SearchService {
  private readonly queries: SearchQueries;

  constructor(private readonly deps: SearchDeps) {
    this.queries = new SearchQueries(deps.db);
  }

  /** `baseUrl` makes the service's own file links absolute. */
  async search(actor: Actor | null, input: unknown, baseUrl: string): Promise<SearchAnswer> {
    // A key that is sent must be allowed to search; no key searches the public tiers.
    if (actor) requireKey(actor, SCOPE.search);
    const request = parseInput(searchRequestSchema, input);
    const { limit, orientation } = request;
    const probe = await this.probe(request.image_data, request.image_url);
    const words = request.query ?? (probe ? await this.keywords(probe.image, actor) : '');
    const keywords = request.query === undefined && words ? words.split(' ') : [];
    const text = request.query !== undefined ? buildSearchQuery(request.query) : keywords.length ? buildSearchQuery(keywords.join(' or ')) : null;

    const objects = probe ? this.deps.imageObjects.nearest(probe, NEAREST_OBJECTS) : Promise.resolve([]);
    const reverse = objects.then((found) => this.objectItems(found.map((n) => n.object.id), orientation));
    const [library, own, atlas, reversed] = await Promise.all([
      actor ? this.library(actor.accountId, text, probe, orientation, limit) : Promise.resolve([]),
      actor && text ? this.queries.ownCommunityText(actor.accountId, text, orientation, limit) : Promise.resolve([]),
      this.atlas(request.query !== undefined ? [request.query] : keywords.slice(0, ATLAS_KEYWORD_QUERIES), orientation, limit),
      reverse,
    ]);
    const atlasPrints = await this.queries.likenessOf(atlas.map((e) => e.imageObjectId));

    const mine = (row: CommunityRow) => actor !== null && row.accountId === actor.accountId;
    const candidates: Candidate[] = [
      ...library.map((row) => this.libraryCandidate(row, baseUrl)),
      // Near copies first, then the words' matches, in each tier.
      ...[...reversed.community.filter(mine), ...own].map((row) => this.communityCandidate(row, 2, baseUrl)),
      ...reversed.wiki.map((row) => this.wikiCandidate(row, baseUrl)),
      ...reversed.community.filter((row) => !mine(row)).map((row) => this.communityCandidate(row, 3, baseUrl)),
      ...atlas.map((entry) => this.atlasCandidate(entry, atlasPrints.get(entry.imageObjectId), baseUrl)),
    ];
    const found = distinct(candidates);
    const sourcesActive: SearchSource[] = [...(actor ? (['my_private_library', 'my_public_atlas'] as const) : []), 'global_atlas'];
    const sourcesFailed: SearchSource[] = [];
    // The stock libraries fill what the service's own tiers leave (their requests cost quota there).
    const open = limit - Math.min(found.length, limit);
    let stockImages: Candidate[] = [];
    if (open > 0 && words) {
      const stock = await this.deps.stock.search(words, { limit: open, orientation });
      sourcesActive.push(...stock.answered);
      sourcesFailed.push(...stock.failed);
      stockImages = stock.images.map((image) => ({ tier: 4 as const, ...image, width: image.width ?? null, height: image.height ?? null }));
    }
    const all = distinct([...found, ...stockImages]);
    return { query: words, isAuthenticatedSearch: actor !== null, images: ranked(all, limit), sourcesActive, sourcesFailed, totalFound: all.length };
  }

  /** The image of an image query, decoded or fetched, checked and hashed; null without one. */
  private async probe(imageData: string | undefined, imageUrl: string | undefined): Promise<Probe | null> {
    const field = imageData !== undefined ? 'image_data' : 'image_url';
    let bytes: Buffer;
    if (imageData !== undefined) bytes = decodeBase64(imageData, field);
    else if (imageUrl !== undefined) bytes = await fetchImageBytes(this.deps.fetcher, imageUrl, field, this.deps.limits.maxBytes);
    else return null;
    const notImage = new InvalidInput(`${field}: not an image (expected JPEG, PNG, WebP, GIF, AVIF, HEIC or TIFF)`, field);
    try {
      // Only the hashes are needed: the smallest thumbnail the processor makes (a third less time).
      const processed = await processUpload(bytes, { ...this.deps.limits, thumbnailSize: 16 });
      if (processed.kind === 'image' && processed.blockhash && processed.phash) {
        return { sha256: processed.sha256, blockhash: processed.blockhash, phash: processed.phash, lowInformation: processed.lowInformation ?? false, image: processed.stored.body };
      }
    } catch (error) {
      // The processor names its input `file` and speaks of uploads; here it is the caller's image_data or image_url.
      if (error instanceof AppError && error.field === 'file') {
        if (/not a supported image/.test(error.message)) throw notImage;
        throw new AppError(error.message.replace(/^file: /, `${field}: `), error.status, error.code, field);
      }
      throw error;
    }
    throw notImage;
  }

  /**
   * Labels, then words of the image's text (three letters or more), lower case, each once. When no
   * provider can answer (none configured, or the caller cannot pay and no local one runs), there
   * are none and the search goes on by hash alone.
   */
  private async keywords(image: Buffer, actor: Actor | null): Promise<string> {
    let analysis: { labels: string[]; text: string };
    try {
      analysis = await this.deps.analyze(image, actor?.accountId);
    } catch (error) {
      // No provider, none the caller can pay, a provider failing, or an image too large for vision.
      if (!(error instanceof AppError)) throw error;
      this.deps.logger.info({ status: error.status, code: error.code }, 'search: no keywords from the image; searching by hash alone');
      return '';
    }
    const words = [...analysis.labels, ...(analysis.text.match(/\p{L}{3,}/gu) ?? [])].map((w) => w.toLowerCase().trim()).filter((w) => /^[\p{L}\p{N} -]+$/u.test(w));
    return [...new Set(words.flatMap((w) => w.split(/\s+/)).filter(Boolean))].slice(0, MAX_IMAGE_KEYWORDS).join(' ');
  }

  /** Near copies first (when there is an image), then the words' matches. */
  private async library(accountId: number, text: TextMatch | null, probe: Probe | null, orientation: SearchOrientation, limit: number): Promise<LibraryRow[]> {
    const [near, matched] = await Promise.all([
      probe ? this.queries.libraryNear(accountId, probe, orientation, limit) : Promise.resolve([]),
      text ? this.queries.libraryText(accountId, text, orientation, limit) : Promise.resolve([]),
    ]);
    const seen = new Set(near.map((r) => r.id));
    return [...near, ...matched.filter((r) => !seen.has(r.id))];
  }

  /** One atlas search per query text, merged in turn, each entry once. */
  private async atlas(queries: string[], orientation: SearchOrientation, limit: number): Promise<AtlasEntry[]> {
    if (queries.length === 0) return [];
    const lists = await Promise.all(queries.map((query) => this.deps.atlas.search({ query, orientation, limit })));
    const seen = new Set<string>();
    const merged: AtlasEntry[] = [];
    for (let i = 0; lists.some((l) => i < l.length); i++) {
      for (const entry of lists.map((l) => l[i]).filter((e): e is AtlasEntry => e !== undefined)) {
        const key = `${entry.source}:${entry.id}`;
        if (!seen.has(key)) merged.push(entry);
        seen.add(key);
      }
    }
    return merged;
  }

  /** The community items and verified wiki photos of the image objects, in the objects' order (nearest first). */
  private async objectItems(objectIds: number[], orientation: SearchOrientation): Promise<{ community: CommunityRow[]; wiki: WikiRow[] }> {
    const [community, wiki] = await Promise.all([this.queries.communityOfObjects(objectIds, orientation), this.queries.wikiOfObjects(objectIds, orientation)]);
    const rank = new Map(objectIds.map((id, i) => [id, i]));
    const byObject = <T extends { objectId: number }>(rows: T[]) => rows.sort((a, b) => rank.get(a.objectId)! - rank.get(b.objectId)!);
    return { community: byObject(community), wiki: byObject(wiki) };
  }

  private libraryCandidate(row: LibraryRow, baseUrl: string): Candidate {
    // The library's own signed link, as GET /api/media/{id} gives it: it works without a key.
    const url = baseUrl + signedMediaPath(this.deps.signer, row, 'original');
    const likeness = row.blockhash ? { sha256: row.sha256, blockhash: row.blockhash, lowInformation: row.lowInformation } : null;
    return { tier: 1, source: 'my_private_library', url, title: row.name, width: row.width, height: row.height, isPrivate: true, likeness };
  }

  private communityCandidate(row: CommunityRow, tier: 2 | 3, baseUrl: string): Candidate {
    return {
      tier,
      source: tier === 2 ? 'my_public_atlas' : 'global_atlas',
      url: baseUrl + this.deps.links.community(row),
      title: row.name ?? (row.tags.join(', ') || 'Untitled'),
      width: row.width,
      height: row.height,
      ...(row.verified ? { isVerified: true as const } : {}),
      objectId: row.objectId,
      likeness: objectLikeness(row),
    };
  }

  private wikiCandidate(row: WikiRow, baseUrl: string): Candidate {
    return { tier: 3, source: 'global_atlas', url: baseUrl + this.deps.links.wikiPhoto(row.id, row.storageKey), title: row.title, width: row.width, height: row.height, isVerified: true, objectId: row.objectId, likeness: objectLikeness(row) };
  }

  private atlasCandidate(entry: AtlasEntry, likeness: Likeness | undefined, baseUrl: string): Candidate {
    const path = entry.source === 'wiki' ? this.deps.links.wikiPhoto(entry.id, entry.storageKey) : this.deps.links.community(entry);
    return {
      tier: 3,
      source: 'global_atlas',
      url: baseUrl + path,
      title: entry.title ?? (entry.tags.join(', ') || 'Untitled'),
      width: entry.width,
      height: entry.height,
      isVerified: true,
      objectId: entry.imageObjectId,
      likeness: likeness ?? null,
    };
  }
}

/** An image object's side of the same-image rule, from a community or wiki row. */
function objectLikeness(row: { objectSha256: string; blockhash: string; lowInformation: boolean }): Likeness {
  return { sha256: row.objectSha256, blockhash: row.blockhash, lowInformation: row.lowInformation };
}
