// ReplaceFlow (spec "ReplaceFlow"): clean versions of an article's watermarked featured image.
//
// 1. The article is read by the featured-image extractor (headline, candidates best first); the
//    first candidate that fetches as a real image (not a video, larger than 2x2 px measured) is the
//    source lead, the watermarked image.
// 2. Reverse search, side by side: Google Cloud Vision web detection when VISION_GOOGLE_API_KEY is
//    set; always our own image-object index (community items and verified wiki photos of the same
//    object, by the image-objects rule for the same image); with a key, the caller's own library
//    (64-bit pHash within PHASH_MATCH_MAX_DISTANCE, under the same rule: a low-information lead or
//    item only by its exact bytes).
// 3. Stock search by the headline's keywords (keywords.ts) when Google is not configured or failed,
//    or when reverse search found nothing.
// 4. Candidates are fetched (SSRF-safe fetcher; ours are read from the blob store), bounded in
//    bytes, pixels, time and number, in parallel (FETCH_CONCURRENCY), and compared with the lead by
//    64-bit pHash (compareImages: a low-information lead or candidate is the same photo only by its
//    exact bytes); same-photo candidates also by the watermark detector (watermark-detector.ts).
//    phash=false skips fetching and hashing the candidates.
// 5. Answer: the source lead first, then the clean discoveries ranked (rank()), at most max_results.
//
// The demo runs the same pipeline for anyone, counted per client address before any work.
import PQueue from 'p-queue';
import ipaddr from 'ipaddr.js';
import type { z } from 'zod';
import type { Database } from '../../platform/database/database.js';
import { readBounded, type BlobStore } from '../../platform/storage/blob-store.js';
import type { SafeFetcher } from '../../platform/http/safe-fetch.js';
import type { UrlSigner } from '../../platform/url-signer.js';
import type { Logger } from '../../platform/logger.js';
import { AppError, ErrorCode, InvalidInput, QuotaExceeded } from '../../platform/errors.js';
import { parseInput } from '../../platform/validation.js';
import { loadSharp } from '../../platform/sharp.js';
import { SCOPE, requireKey } from '../access/index.js';
import type { Actor } from '../accounts/index.js';
import type { FeaturedService } from '../featured/index.js';
import { compareImages, isLowInformation, SAME_PHOTO_MAX_PHASH_DISTANCE, type ImageObjectsService } from '../image-objects/index.js';
import { fetchImageBytes, processSharedImage, type SharedImage } from '../images/index.js';
import { signedMediaPath } from '../media/index.js';
import type { QuotaService } from '../quota/index.js';
import type { GoogleWebDetection, WebMatchKind } from './google-web-detection.js';
import { keywordsOf } from './keywords.js';
import { demoSchema, replaceflowSchema, DEFAULT_MAX_RESULTS } from './replaceflow.input.js';
import { compareMarks, type MarkComparison } from './watermark-detector.js';

/** The stock search ReplaceFlow falls back to (the unified search's stock tier, wired by the composition root). */
export type KeywordImageSearch = (
  keywords: string,
  options: { limit: number; signal?: AbortSignal },
) => Promise<Array<{ url: string; title: string; source: string; width?: number; height?: number }>>;

/** Spec: a Hamming distance of 10 or less is the same photo (the image-objects rule's pHash measure). */
export const PHASH_MATCH_MAX_DISTANCE = SAME_PHOTO_MAX_PHASH_DISTANCE;
/** Candidates fetched at once, and at most this many in all. */
export const FETCH_CONCURRENCY = 4;
export const MAX_EXAMINED = 24;
/** Per candidate: the whole download, and its size. */
export const CANDIDATE_TIMEOUT_MS = 8_000;
export const CANDIDATE_MAX_BYTES = 15 * 1024 * 1024;
/** All candidates together: what is not examined by then is left out (a sync answer must come). */
export const EXAMINE_DEADLINE_MS = 20_000;
/** Featured-image candidates tried for the source lead. */
export const LEAD_ATTEMPTS = 4;
/** The demo (spec "Limits"): per client address per hour; and all clients together, a ceiling of ours. */
export const DEMO_PER_ADDRESS = 5;
export const DEMO_ALL_ADDRESSES = 500;
export const DEMO_WINDOW_MS = 3_600_000;
/** Bits of a pHash. */
const PHASH_BITS = 64;
/** Local index lookups: image objects near the lead, library items near it. */
const LOCAL_NEIGHBOURS = 10;

export type ResultType = 'source_lead' | 'clean_discovery';
export type CandidateSource = WebMatchKind | 'community' | 'wiki' | 'library' | `stock:${string}`;

export interface ReplaceFlowEntry {
  type: ResultType;
  url: string;
  isWatermarked: boolean;
  domain: string;
  /** source_lead only. */
  headline: string | null;
  /** Where the candidate came from (the lead: the featured-image source, e.g. og_meta). */
  source: string | null;
  /** The page the image was found on (reverse-search page matches). */
  pageUrl: string | null;
  /** clean_discovery only: 0 to 100. */
  qualityScore: number | null;
  width: number | null;
  height: number | null;
  /** Null when phash is false. */
  phash: string | null;
  phashDistance: number | null;
  phashMatch: boolean | null;
}

export type SearchTier = 'google_vision' | 'local_index' | 'library' | 'stock';
export interface SearchReport {
  tier: SearchTier;
  /** ok, failed (the tier answered an error: it is logged), or skipped (not configured or not needed). */
  status: 'ok' | 'failed' | 'skipped';
  found: number;
}

export interface ReplaceFlowResult {
  headline: string | null;
  sourceDomain: string;
  watermarkedUrl: string;
  phashEnabled: boolean;
  count: number;
  results: ReplaceFlowEntry[];
  searched: SearchReport[];
}

export interface ReplaceFlowDeps {
  db: Database;
  blobs: BlobStore;
  fetcher: SafeFetcher;
  featured: FeaturedService;
  imageObjects: ImageObjectsService;
  community: { fileUrl(item: { id: number; storageKey: string }, variant: 'public'): string };
  wiki: { fileUrl(kind: 'photos', id: number, storageKey: string): string };
  signer: UrlSigner;
  quota: Pick<QuotaService, 'take'>;
  /** Google web detection, when VISION_GOOGLE_API_KEY is set. */
  webDetection: GoogleWebDetection | null;
  stockSearch: KeywordImageSearch;
  limits: { maxBytes: number; maxPixels: number };
  logger: Logger;
}

interface Candidate {
  url: string;
  source: CandidateSource;
  pageUrl?: string;
  width?: number;
  height?: number;
  /** Ours: read from the blob store instead of fetched. */
  storageKey?: string;
}

interface Examined {
  candidate: Candidate;
  image?: SharedImage;
  distance?: number;
  /** The same photo as the lead by the same-image rule. */
  same?: boolean;
  /** The lead or the candidate is low-information: only the exact bytes would have been the same photo. */
  exactOnly?: boolean;
  marks?: MarkComparison;
}

interface Lead {
  url: string;
  source: string;
  bytes: Buffer;
  image: SharedImage;
}

interface RunOptions {
  articleUrl: string;
  maxResults: number;
  phash: boolean;
  /** The caller's account (its library is searched too); null for the demo. */
  accountId: number | null;
  baseUrl: string;
}

export class ReplaceFlowService {
  constructor(private readonly deps: ReplaceFlowDeps) {}

  /** The composition root connects the unified search's stock tier here (tests connect their own). */
  useStockSearch(search: KeywordImageSearch): void {
    this.deps.stockSearch = search;
  }

  /** POST /api/replaceflow: a key with the search scope. */
  async find(actor: Actor | null, input: z.input<typeof replaceflowSchema>, baseUrl: string): Promise<ReplaceFlowResult> {
    const checked = requireKey(actor, SCOPE.search);
    const options = parseInput(replaceflowSchema, input);
    return this.run({ articleUrl: options.article_url, maxResults: options.max_results, phash: options.phash, accountId: checked.accountId, baseUrl });
  }

  /**
   * POST /api/replaceflow/demo: no key; DEMO_PER_ADDRESS requests per client address an hour,
   * counted in the database before any work (concurrent requests cannot outrun it), then 429 with
   * Retry-After. A valid input is needed before a request counts.
   */
  async demo(clientAddress: string | undefined, input: z.input<typeof demoSchema>, baseUrl: string): Promise<ReplaceFlowResult> {
    const options = parseInput(demoSchema, input);
    const client = addressKey(clientAddress);
    const taken = await this.deps.quota.take(
      [
        { key: `replaceflow-demo:${client}`, limit: DEMO_PER_ADDRESS },
        { key: 'replaceflow-demo:all', limit: DEMO_ALL_ADDRESSES },
      ],
      DEMO_WINDOW_MS,
    );
    if (!taken.taken) {
      throw new QuotaExceeded(`the ReplaceFlow demo allows ${DEMO_PER_ADDRESS} requests per hour per address; retry in ${taken.retryAfterSeconds} s, or use POST /api/replaceflow with an API key`, {
        'Retry-After': String(taken.retryAfterSeconds),
      });
    }
    return this.run({ articleUrl: options.article_url, maxResults: DEFAULT_MAX_RESULTS, phash: true, accountId: null, baseUrl });
  }

  private async run(options: RunOptions): Promise<ReplaceFlowResult> {
    const refusal = this.deps.fetcher.refusal(options.articleUrl);
    if (refusal) throw new InvalidInput(`article_url: refused to fetch ${options.articleUrl}: ${refusal}`, 'article_url');
    const article = await this.deps.featured.article(options.articleUrl, 'article_url');
    const lead = await this.lead(article.candidates);
    const { candidates, searched } = await this.search(lead, article.headline, options);
    const examined = options.phash ? await this.examine(lead, candidates) : candidates.map((candidate) => ({ candidate }));
    return this.answer(options, article, lead, examined, searched);
  }

  /** The first featured-image candidate that is a real image (measured), fetched and hashed. */
  private async lead(featured: Array<{ url: string; source: string }>): Promise<Lead> {
    const problems: string[] = [];
    for (const candidate of featured.slice(0, LEAD_ATTEMPTS)) {
      try {
        const bytes = await fetchImageBytes(this.deps.fetcher, candidate.url, 'article_url', this.maxBytes, { timeoutMs: CANDIDATE_TIMEOUT_MS });
        const image = await processSharedImage(bytes, this.deps.limits);
        // A tracking pixel or a spacer, measured: not the article's picture.
        if (image.width <= 2 || image.height <= 2) {
          problems.push(`${candidate.url} is ${image.width}x${image.height}`);
          continue;
        }
        return { url: candidate.url, source: candidate.source, bytes, image };
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        problems.push(`${candidate.url}: ${error.message.replace(/^(article_url|file): /, '')}`);
      }
    }
    const why = problems.length ? ` (${problems.slice(0, 3).join('; ')})` : '';
    throw new AppError(`article_url: the page has no featured image that could be read${why}`, 400, ErrorCode.NoFeaturedImage, 'article_url');
  }

  /** Reverse search (Google, the local index, the library), then stock by the headline when needed. */
  private async search(lead: Lead, headline: string | null, options: RunOptions): Promise<{ candidates: Candidate[]; searched: SearchReport[] }> {
    const [google, local, library] = await Promise.all([
      this.tier('google_vision', this.deps.webDetection ? () => this.googleMatches(lead) : null),
      this.tier('local_index', () => this.localMatches(lead, options.baseUrl)),
      this.tier('library', options.accountId === null ? null : () => this.libraryMatches(lead, options.accountId!, options.baseUrl)),
    ]);
    const reverse = [...library.found, ...local.found, ...google.found];
    const needStock = google.report.status !== 'ok' || reverse.length === 0;
    const keywords = keywordsOf(headline);
    const stock = await this.tier('stock', needStock && keywords ? () => this.stockMatches(keywords, options.maxResults) : null);
    const seen = new Set([normalised(lead.url)]);
    const candidates = [...reverse, ...stock.found].filter((c) => {
      const key = normalised(c.url);
      if (seen.has(key)) return false;
      seen.add(key);
      // Ours are read from the blob store; anything else must be fetchable at all.
      return c.storageKey !== undefined || this.deps.fetcher.refusal(c.url) === null;
    });
    return { candidates, searched: [google.report, local.report, library.report, stock.report] };
  }

  /** Runs one search tier; a failing tier is logged and reported, never fatal. */
  private async tier(tier: SearchTier, search: (() => Promise<Candidate[]>) | null): Promise<{ found: Candidate[]; report: SearchReport }> {
    if (!search) return { found: [], report: { tier, status: 'skipped', found: 0 } };
    try {
      const found = await search();
      return { found, report: { tier, status: 'ok', found: found.length } };
    } catch (error) {
      this.deps.logger.warn({ err: error, tier }, 'replaceflow: a search tier failed');
      return { found: [], report: { tier, status: 'failed', found: 0 } };
    }
  }

  private async googleMatches(lead: Lead): Promise<Candidate[]> {
    // A bounded JPEG of the lead: Google reads it as well, and the request stays small.
    const sharp = await loadSharp();
    const small = await sharp(lead.bytes, { limitInputPixels: this.deps.limits.maxPixels }).rotate().resize({ width: 1600, height: 1600, fit: 'inside', withoutEnlargement: true }).jpeg({ quality: 85 }).toBuffer();
    const matches = await this.deps.webDetection!.find(small);
    return matches.map((m) => ({ url: m.url, source: m.kind, pageUrl: m.pageUrl }));
  }

  /** Community items (public, not taken down) and verified wiki photos of image objects near the lead, nearest objects first (also within each query's limit). */
  private async localMatches(lead: Lead, baseUrl: string): Promise<Candidate[]> {
    const neighbours = await this.deps.imageObjects.nearest(lead.image, LOCAL_NEIGHBOURS);
    if (neighbours.length === 0) return [];
    const ids = neighbours.map((n) => n.object.id);
    const order = (objectId: number) => ids.indexOf(objectId);
    const [items, photos] = await Promise.all([
      this.deps.db.query<{ id: number; objectId: number; storageKey: string; width: number; height: number }>(
        `SELECT "id", "objectId", "storageKey", "width", "height" FROM "CommunityItem" WHERE "objectId" = ANY($1::int[]) AND "public" AND "removedAt" IS NULL
          ORDER BY array_position($1::int[], "objectId"), "id" LIMIT 20`,
        [ids],
      ),
      this.deps.db.query<{ id: number; objectId: number; storageKey: string; width: number; height: number }>(
        `SELECT m."id", m."objectId", m."storageKey", m."width", m."height" FROM "WikiMedia" m JOIN "WikiSubject" s ON s."id" = m."subjectId"
          WHERE m."objectId" = ANY($1::int[]) AND m."status" = 'verified' AND s."status" = 'approved'
          ORDER BY array_position($1::int[], m."objectId"), m."id" LIMIT 20`,
        [ids],
      ),
    ]);
    const found = [
      ...items.map((i) => ({ objectId: i.objectId, candidate: { url: baseUrl + this.deps.community.fileUrl(i, 'public'), source: 'community' as const, storageKey: i.storageKey, width: i.width, height: i.height } })),
      ...photos.map((p) => ({ objectId: p.objectId, candidate: { url: baseUrl + this.deps.wiki.fileUrl('photos', p.id, p.storageKey), source: 'wiki' as const, storageKey: p.storageKey, width: p.width, height: p.height } })),
    ];
    return found.sort((a, b) => order(a.objectId) - order(b.objectId)).map((f) => f.candidate);
  }

  /**
   * The caller's own live images whose pHash is within PHASH_MATCH_MAX_DISTANCE of the lead's, by
   * the same-image rule: when the lead or the item is low-information, only the lead's exact bytes.
   */
  private async libraryMatches(lead: Lead, accountId: number, baseUrl: string): Promise<Candidate[]> {
    const rows = await this.deps.db.query<{ id: number; sha256: string; storageKey: string; width: number | null; height: number | null }>(
      `SELECT "id", "sha256", "storageKey", "width", "height" FROM (
         SELECT *, bit_count("phashBits" # ('x' || $2)::bit(64)) AS distance
           FROM "MediaItem" WHERE "accountId" = $1 AND "trashedAt" IS NULL AND "kind" = 'image' AND "phashBits" IS NOT NULL
            AND ("sha256" = $5 OR (NOT $6 AND NOT "lowInformation"))) near
        WHERE distance <= $3 ORDER BY distance, "id" DESC LIMIT $4`,
      [accountId, lead.image.phash, PHASH_MATCH_MAX_DISTANCE, LOCAL_NEIGHBOURS, lead.image.sha256, isLowInformation(lead.image)],
    );
    return rows.map((r) => ({
      url: baseUrl + signedMediaPath(this.deps.signer, r, 'original'),
      source: 'library' as const,
      storageKey: r.storageKey,
      width: r.width ?? undefined,
      height: r.height ?? undefined,
    }));
  }

  private async stockMatches(keywords: string, maxResults: number): Promise<Candidate[]> {
    const found = await this.deps.stockSearch(keywords, { limit: Math.min(MAX_EXAMINED, maxResults * 2), signal: AbortSignal.timeout(CANDIDATE_TIMEOUT_MS * 2) });
    return found
      .filter((f) => typeof f.url === 'string' && /^https?:\/\//i.test(f.url))
      .map((f) => ({ url: f.url, source: `stock:${f.source}` as const, width: f.width, height: f.height }));
  }

  /**
   * Fetches (or reads) and hashes up to MAX_EXAMINED candidates, FETCH_CONCURRENCY at a time, all
   * within EXAMINE_DEADLINE_MS; the
   * watermark detector compares the same-photo ones with the lead. A candidate that cannot be read
   * as an image is dropped.
   */
  private async examine(lead: Lead, candidates: Candidate[]): Promise<Examined[]> {
    const queue = new PQueue({ concurrency: FETCH_CONCURRENCY });
    const deadline = AbortSignal.timeout(EXAMINE_DEADLINE_MS);
    const examined = await Promise.all(
      candidates.slice(0, MAX_EXAMINED).map((candidate) =>
        queue.add(async (): Promise<Examined | null> => {
          if (deadline.aborted) return null;
          try {
            const bytes = candidate.storageKey
              ? await this.stored(candidate.storageKey)
              : await fetchImageBytes(this.deps.fetcher, candidate.url, 'candidate', this.maxBytes, { timeoutMs: CANDIDATE_TIMEOUT_MS, signal: deadline });
            if (!bytes) return null;
            const image = await processSharedImage(bytes, this.deps.limits);
            if (image.width <= 2 || image.height <= 2) return null;
            const { same, distance, exactOnly } = compareImages(lead.image, image, 'phash');
            const marks = same ? await compareMarks(lead.bytes, bytes, this.deps.limits.maxPixels) : undefined;
            return { candidate, image, distance, same, exactOnly, marks };
          } catch (error) {
            if (!(error instanceof AppError)) this.deps.logger.warn({ err: error, url: candidate.url }, 'replaceflow: a candidate could not be examined');
            return null;
          }
        }),
      ),
    );
    return examined.filter((e): e is Examined => e !== null && e !== undefined);
  }

  private async stored(key: string): Promise<Buffer | null> {
    const blob = await this.deps.blobs.get(key);
    return blob ? readBounded(blob.body, this.maxBytes) : null;
  }

  private get maxBytes(): number {
    return Math.min(CANDIDATE_MAX_BYTES, this.deps.limits.maxBytes);
  }

  private answer(options: RunOptions, article: { page: string; headline: string | null }, lead: Lead, examined: Examined[], searched: SearchReport[]): ReplaceFlowResult {
    // The lead is watermarked when a same-photo copy lacks marks it has.
    const leadMarked = examined.some((e) => e.marks?.firstMarked);
    const discoveries = examined.map((e) => {
      // A copy with its own marks, or one that shows no difference from a marked lead, carries marks.
      const isWatermarked = e.marks ? e.marks.secondMarked || (leadMarked && e.marks.identical) : false;
      const width = e.image?.width ?? e.candidate.width ?? null;
      const height = e.image?.height ?? e.candidate.height ?? null;
      const entry: ReplaceFlowEntry = {
        type: 'clean_discovery',
        url: e.candidate.url,
        isWatermarked,
        domain: domainOf(e.candidate.url),
        headline: null,
        source: e.candidate.source,
        pageUrl: e.candidate.pageUrl ?? null,
        // A plain lead or candidate that is not the same bytes resembles the lead in nothing the hash can tell: no similarity.
        qualityScore: qualityScore({ distance: e.exactOnly && !e.same ? PHASH_BITS / 2 : e.distance, source: e.candidate.source, isWatermarked, pixels: width && height ? width * height : null, leadPixels: lead.image.width * lead.image.height }),
        width,
        height,
        phash: options.phash ? (e.image?.phash ?? null) : null,
        phashDistance: options.phash ? (e.distance ?? null) : null,
        phashMatch: options.phash && e.same !== undefined ? e.same : null,
      };
      return entry;
    });
    const sourceLead: ReplaceFlowEntry = {
      type: 'source_lead',
      url: lead.url,
      isWatermarked: leadMarked,
      domain: domainOf(lead.url),
      headline: article.headline,
      source: lead.source,
      pageUrl: article.page,
      qualityScore: null,
      width: lead.image.width,
      height: lead.image.height,
      phash: options.phash ? lead.image.phash : null,
      phashDistance: options.phash ? 0 : null,
      phashMatch: options.phash ? true : null,
    };
    const results = [sourceLead, ...rank(discoveries).slice(0, options.maxResults)];
    return {
      headline: article.headline,
      sourceDomain: domainOf(article.page),
      watermarkedUrl: lead.url,
      phashEnabled: options.phash,
      count: results.length,
      results,
      searched,
    };
  }
}

/** Same photo first, then clean before marked, then quality, then nearer. */
export function rank(entries: ReplaceFlowEntry[]): ReplaceFlowEntry[] {
  return [...entries].sort(
    (a, b) =>
      Number(b.phashMatch === true) - Number(a.phashMatch === true) ||
      Number(a.isWatermarked) - Number(b.isWatermarked) ||
      (b.qualityScore ?? 0) - (a.qualityScore ?? 0) ||
      (a.phashDistance ?? 64) - (b.phashDistance ?? 64),
  );
}

/** Without a measured distance, how likely each origin is the same photo. */
const SOURCE_SIMILARITY: Record<string, number> = {
  library: 0.9,
  community: 0.9,
  wiki: 0.9,
  google_full_match: 0.9,
  google_page_match: 0.75,
  google_partial_match: 0.7,
  google_similar: 0.4,
};

/**
 * quality_score, 0 to 100: 55 x similarity (1 - distance / 32, floored at 0; without a distance,
 * SOURCE_SIMILARITY, stock 0.2) + 25 x resolution (the candidate's pixels against the lead's, at
 * most 1; 0.5 when unknown) + 20 when no marks were found on it.
 */
export function qualityScore(input: { distance?: number; source: string; isWatermarked: boolean; pixels: number | null; leadPixels: number }): number {
  const similarity = input.distance !== undefined ? Math.max(0, 1 - input.distance / 32) : (SOURCE_SIMILARITY[input.source] ?? 0.2);
  const resolution = input.pixels === null ? 0.5 : Math.min(1, input.pixels / Math.max(1, input.leadPixels));
  return Math.round(55 * similarity + 25 * resolution + (input.isWatermarked ? 0 : 20));
}

/** The host without a leading www. */
export function domainOf(url: string): string {
  try {
    return new URL(url).hostname.toLowerCase().replace(/^www\./, '');
  } catch {
    return '';
  }
}

/** One URL per image: no fragment, a lower-case host. */
function normalised(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.hash = '';
    return parsed.href;
  } catch {
    return url;
  }
}

/**
 * The demo's counter key for a client address: IPv4 as is (IPv4-mapped IPv6 too), IPv6 by its /64
 * (one subscriber's network, which hands out addresses freely), unknown as one shared key.
 */
export function addressKey(address: string | undefined): string {
  if (!address || !ipaddr.isValid(address)) return 'unknown';
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const parts = (parsed as ipaddr.IPv6).parts.slice(0, 4);
  return `${parts.map((p) => p.toString(16)).join(':')}::/64`;
}

