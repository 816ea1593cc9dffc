// The community library (spec "Community"): images people give the community, each one an image
// object (the same picture contributed again by its contributor earns nothing), crowd tags with
// vision confirmation, mobile ingest with a paywalled original, unlocks that pay the uploader, the
// leaderboard and contributor portfolios. Every coin moves through the ledger: rewards through the
// rewards service (once per object, capped per day), unlocks as one linked transfer.
//
// This is the one face the GraphQL layer, the HTTP file route and other modules use; each part is a
// file of its own: contributions.service.ts, tagging.service.ts, unlocks.service.ts,
// listings.service.ts (search, items, leaderboard, portfolios), item-files.ts (signed links),
// item-vision.ts (what vision saw), and subject-evidence.ts.
import type { Tx } from '../ledger/index.js';
import type { CommunityDeps } from './community.deps.js';
import { ContributionsService } from './contributions.service.js';
import { CommunityFiles } from './item-files.js';
import { CommunityVision } from './item-vision.js';
import { CommunityListings } from './listings.service.js';
import { checkSubject, type Subject, type SubjectCheck } from './subject-evidence.js';
import { TaggingService } from './tagging.service.js';
import { UnlocksService } from './unlocks.service.js';

export type { CommunityItem } from '../../generated/prisma/client.js';
export type { Analyzer, CommunityDeps } from './community.deps.js';
export { INGEST_PUBLIC_MAX_SIDE, type ContributionResult } from './contributions.service.js';
export { COMMUNITY_VARIANTS, communityFilePath } from './item-files.js';
export type { LeaderboardEntry, Portfolio } from './listings.service.js';
export type { TagResult } from './tagging.service.js';
export { UPLOADER_SHARE_PERCENT, type UnlockResult } from './unlocks.service.js';

export class CommunityService {
  private readonly contributions: ContributionsService;
  private readonly tagging: TaggingService;
  private readonly unlocks: UnlocksService;
  private readonly listings: CommunityListings;
  private readonly files: CommunityFiles;

  constructor(private readonly deps: CommunityDeps) {
    const vision = new CommunityVision(deps);
    this.listings = new CommunityListings(deps);
    this.contributions = new ContributionsService(deps, vision);
    this.tagging = new TaggingService(deps, this.listings, vision);
    this.unlocks = new UnlocksService(deps, this.listings);
    this.files = new CommunityFiles(deps);
  }

  contribute(...args: Parameters<ContributionsService['contribute']>) {
    return this.contributions.contribute(...args);
  }

  ingest(...args: Parameters<ContributionsService['ingest']>) {
    return this.contributions.ingest(...args);
  }

  tag(...args: Parameters<TaggingService['tag']>) {
    return this.tagging.tag(...args);
  }

  setTags(...args: Parameters<TaggingService['setTags']>) {
    return this.tagging.setTags(...args);
  }

  unlock(...args: Parameters<UnlocksService['unlock']>) {
    return this.unlocks.unlock(...args);
  }

  readableOriginals(...args: Parameters<UnlocksService['readableOriginals']>) {
    return this.unlocks.readableOriginals(...args);
  }

  get(...args: Parameters<CommunityListings['get']>) {
    return this.listings.get(...args);
  }

  search(...args: Parameters<CommunityListings['search']>) {
    return this.listings.search(...args);
  }

  my(...args: Parameters<CommunityListings['my']>) {
    return this.listings.my(...args);
  }

  leaderboard(...args: Parameters<CommunityListings['leaderboard']>) {
    return this.listings.leaderboard(...args);
  }

  portfolio(...args: Parameters<CommunityListings['portfolio']>) {
    return this.listings.portfolio(...args);
  }

  fileUrl(...args: Parameters<CommunityFiles['fileUrl']>) {
    return this.files.fileUrl(...args);
  }

  openSigned(...args: Parameters<CommunityFiles['openSigned']>) {
    return this.files.openSigned(...args);
  }

  /** Whether the item shows the subject (subject-evidence.ts), in the caller's transaction with `tx`. */
  async showsSubject(itemId: number, subject: Subject, tx?: Tx): Promise<SubjectCheck> {
    return checkSubject(tx ?? this.deps.db, itemId, subject);
  }
}
