// What the community services are built with (the composition root passes one of these).
import type { Database } from '../../platform/database/database.js';
import type { SafeFetcher } from '../../platform/http/safe-fetch.js';
import type { Logger } from '../../platform/logger.js';
import type { BlobStore } from '../../platform/storage/blob-store.js';
import type { UrlSigner } from '../../platform/url-signer.js';
import type { ImageObjectsService } from '../image-objects/index.js';
import type { LedgerService, RewardsService } from '../ledger/index.js';

/** What vision says about an image: labels, a caption and the text read in it. */
export type Analyzer = (image: Buffer, payer: number) => Promise<{ labels: string[]; caption: string; text: string }>;

export interface CommunityDeps {
  db: Database;
  blobs: BlobStore;
  fetcher: SafeFetcher;
  imageObjects: ImageObjectsService;
  ledger: LedgerService;
  rewards: RewardsService;
  signer: UrlSigner;
  logger: Logger;
  analyze: Analyzer | null;
  /** A model provider's judgement of a tag set, or null (docs/rest-api.md "Community": vision confirmation). */
  judge?: (image: Buffer, tags: string[], payer: number) => Promise<string[] | null>;
  limits: { maxBytes: number; maxPixels: number };
}
