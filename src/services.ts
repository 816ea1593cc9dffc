// Composition root of the domain services: built once per process from the configuration.
import type { Config } from './config.js';
import type { Database } from './platform/database/database.js';
import type { EventBus } from './platform/events.js';
import type { Logger } from './platform/logger.js';
import type { BlobStore } from './platform/storage/blob-store.js';
import type { JobQueue } from './platform/queue/job-queue.js';
import { InProcessQueue } from './platform/queue/in-process-queue.js';
import { BullMqQueue } from './platform/queue/bullmq-queue.js';
import { SafeFetcher } from './platform/http/safe-fetch.js';
import { AuthService } from './modules/accounts/index.js';
import { AccountsService, KeyWatch } from './modules/accounts/index.js';
import { AdmissionService, QuotaService } from './modules/quota/index.js';
import { ImageObjectsService } from './modules/image-objects/index.js';
import { SubKeysService } from './modules/api-keys/index.js';
import { JobsService } from './modules/jobs/index.js';
import { JobRunner } from './modules/jobs/index.js';
import { JobFilesService } from './modules/jobs/index.js';
import { ScrapeService, SCRAPE_JOB_KIND } from './modules/scrape/index.js';
import { createScrapeHandler, inlineCrawler, type Crawler } from './modules/scrape/index.js';
import { CrawlProcessPool } from './modules/scrape/index.js';
import { WebhooksService } from './modules/automation/index.js';
import { SchedulesService } from './modules/automation/index.js';
import { CredentialBox, setUpExports, type ExportsService } from './modules/automation/index.js';
import { FeaturedService } from './modules/featured/index.js';
import { VisionService } from './modules/vision/index.js';
import { GoogleWebDetection, ReplaceFlowService } from './modules/replaceflow/index.js';
import { MediaService } from './modules/media/index.js';
import { FoldersService } from './modules/media/index.js';
import { CreditsService, LedgerService, RewardsService } from './modules/ledger/index.js';
import { CollectionsService } from './modules/collections/index.js';
import { GalleryService } from './modules/collections/index.js';
import { StockListsService } from './modules/stock-lists/index.js';
import { createEconomy, type Economy } from './modules/economy/index.js';
import { UrlSigner } from './platform/url-signer.js';
import { ClaimsService, CommunityService } from './modules/community/index.js';
import { BountiesService } from './modules/bounties/index.js';
import { AtlasService, FollowsService, WikiService } from './modules/wiki/index.js';
import { IntelService } from './modules/intel/index.js';
import { ChallengesService } from './modules/challenges/index.js';
import { TransformService } from './modules/imaging/index.js';
import { WatermarkService } from './modules/imaging/index.js';
import { createGeneration, GENERATION_JOB_KIND, type GenerationService } from './modules/generation/index.js';
import { SearchService, StockSearchService, stockClientsFromConfig } from './modules/search/index.js';
import { PipelineService } from './modules/pipeline/index.js';
import { setUpMirrors, type MirrorsService } from './modules/mirrors/index.js';
import { BotLinksService, BotNoticesService } from './modules/bot/index.js';

export interface Services {
  config: Config;
  db: Database;
  events: EventBus;
  logger: Logger;
  blobs: BlobStore;
  fetcher: SafeFetcher;
  adminToken: string;
  auth: AuthService;
  /** Ends open subscriptions of keys that may no longer be used (revoked, rotated, expired, suspended), on every process. */
  keyWatch: KeyWatch;
  quota: QuotaService;
  /** Authentication and quota of a request with a key, in one round trip for a key seen before. */
  admission: AdmissionService;
  /** The one identity of an image across the community library, the wiki, mirrors and reverse search. */
  imageObjects: ImageObjectsService;
  /** The community library and ownership claims on its items. */
  community: CommunityService;
  claims: ClaimsService;
  /** Coins offered for photos of a subject, escrowed in the ledger. */
  bounties: BountiesService;
  /** The image wiki: subjects, photos verified by vote, the paid query. */
  wiki: WikiService;
  /** Image intel: comments and proposals on community items, resolved by their owners. */
  intel: IntelService;
  /** Fact-checking challenges: windows in which wiki votes pay the challenge multiplier. */
  challenges: ChallengesService;
  /** Who follows which wiki subject, and telling them. */
  follows: FollowsService;
  /** The global verified atlas: verified wiki photos and AI-verified community items (the unified search's third tier). */
  atlas: AtlasService;
  accounts: AccountsService;
  subKeys: SubKeysService;
  jobs: JobsService;
  jobRunner: JobRunner;
  jobFiles: JobFilesService;
  queue: JobQueue;
  /** Where this process's scrape jobs crawl: crawl processes of their own, or inline. */
  crawler: Crawler;
  scrape: ScrapeService;
  webhooks: WebhooksService;
  schedules: SchedulesService;
  /** Exports of library items to WordPress and Shopify (jobs). */
  exports: ExportsService;
  featured: FeaturedService;
  vision: VisionService;
  signer: UrlSigner;
  transforms: TransformService;
  watermarks: WatermarkService;
  media: MediaService;
  folders: FoldersService;
  /** Money: the ledger (coins and credits), API credits, rewards. */
  ledger: LedgerService;
  credits: CreditsService;
  rewards: RewardsService;
  collections: CollectionsService;
  /** The public gallery pages of shared collections (the token is the capability). */
  gallery: GalleryService;
  stockLists: StockListsService;
  /** The coin economy: the coin-to-credit bridge, referrals, style presets, the operator's coin grants. */
  economy: Economy;
  /** Text-to-image generation: providers in cost order with fallback, the queued job, the batch. */
  generation: GenerationService;
  /** The unified ranked image search (POST /api/images/search). */
  search: SearchService;
  /** The external stock libraries on their own (the search's fourth tier; ReplaceFlow's clean copies). */
  stockSearch: StockSearchService;
  /** ReplaceFlow: clean versions of an article's watermarked image (reverse search, pHash, the watermark detector). */
  replaceflow: ReplaceFlowService;
  /** Pipelines: steps run in order through the services of their single routes (POST /api/pipeline). */
  pipeline: PipelineService;
  /** Bulk mirror jobs (URLs checked against the image objects, paid once per URL ever) and the media mirror check. */
  mirrors: MirrorsService;
  /** The Telegram bot's account links (one-time codes) and its "tell this chat when the job ends" rows. */
  botLinks: BotLinksService;
  botNotices: BotNoticesService;
}

export interface Platform {
  config: Config;
  db: Database;
  events: EventBus;
  logger: Logger;
  blobs: BlobStore;
  adminToken: string;
}

export function createServices({ config, db, events, logger, blobs, adminToken }: Platform): Services {
  const fetcher = new SafeFetcher(config.fetch);
  const jobs = new JobsService(db, events, blobs, logger);
  const jobRunner = new JobRunner(jobs, logger, config.jobs.leaseMs);
  const claimAndRun = (jobId?: number) => jobRunner.claimAndRun(jobId);
  const queue: JobQueue = config.redisUrl
    ? new BullMqQueue(config.redisUrl, claimAndRun, logger, { concurrency: config.jobs.concurrency, prefix: config.redisPrefix })
    : new InProcessQueue(claimAndRun, logger, { concurrency: config.jobs.concurrency, pollMs: config.jobs.pollMs });

  const scrape = new ScrapeService(jobs, queue, (url) => fetcher.refusal(url));
  // Seals the secrets the service keeps (export credentials, webhook signing secrets).
  const credentialBox = CredentialBox.fromConfig(config.dataDir, config.exports.secretKey);
  const webhooks = new WebhooksService(db, fetcher, logger, credentialBox, {
    ...config.webhooks,
    allowPrivateAddresses: config.fetch.allowPrivateAddresses,
    publicBaseUrl: config.publicBaseUrl,
  });
  // Inside the transaction that finishes a job: its deliveries are written with it or not at all.
  jobs.onFinished((job, tx) => webhooks.enqueueJobEvent(job, tx));

  const ledger = new LedgerService(db);
  const credits = new CreditsService(ledger);
  const vision = new VisionService(config.vision, logger, { maxBytes: config.uploadMaxBytes });
  // External vision providers cost credits, also for ai_labeling and auto_tag (auto mode: paid while the account can pay, else local).
  vision.useBilling(credits);
  const labeler = async (image: Buffer, accountId: number) => (await vision.analyze({ image, task: 'describe', payer: accountId })).labels;
  const crawler: Crawler =
    config.scrape.isolation === 'process'
      ? new CrawlProcessPool({
          settings: { fetch: config.fetch, scrape: config.scrape, dataDir: config.dataDir, s3: config.s3, logLevel: config.logLevel },
          maxHeapMb: config.scrape.processMaxHeapMb,
          idleMs: config.scrape.processIdleMs,
          logger,
        })
      : inlineCrawler({ fetcher, blobs, logger, scrape: config.scrape, userAgent: config.fetch.userAgent, maxRedirects: config.fetch.maxRedirects });
  jobRunner.register(SCRAPE_JOB_KIND, createScrapeHandler({ db, blobs, crawler, cacheSeconds: config.scrape.cacheSeconds, labeler }));
  const signer = UrlSigner.fromConfig(config.dataDir, config.urlSigningKey);
  const exports = setUpExports({ config, db, jobs, jobRunner, queue, fetcher, blobs, signer, logger, box: credentialBox });
  // What any image a caller sends or names may weigh: bytes and decoded pixels.
  const uploadLimits = { maxBytes: config.uploadMaxBytes, maxPixels: config.uploadMaxPixels };
  const media = new MediaService(db, blobs, uploadLimits, signer);
  const quota = new QuotaService(db, config.tiers);
  const auth = new AuthService(db);
  const keyWatch = new KeyWatch(db, events, logger);
  const collections = new CollectionsService(db);
  media.useAutoTagger(async (image, accountId) => {
    const result = await vision.analyze({ image, task: 'all', payer: accountId });
    return { labels: result.labels, caption: result.caption, text: result.text };
  });

  const imageObjects = new ImageObjectsService(db);
  // Community items and wiki photos are analysed whole (labels, caption, text), paid like auto_tag.
  const analyzeShared = async (image: Buffer, payer: number) => vision.analyze({ image, task: 'all', payer });
  const rewards = new RewardsService(db, ledger, config.rewards);
  const community = new CommunityService({
    db,
    blobs,
    fetcher,
    imageObjects,
    ledger,
    rewards,
    signer,
    logger,
    analyze: analyzeShared,
    judge: (image, tags, payer) => vision.judgeTags(image, tags, payer),
    limits: uploadLimits,
  });

  const wiki = new WikiService({
    db,
    blobs,
    fetcher,
    imageObjects,
    rewards,
    credits,
    ledger,
    signer,
    logger,
    analyze: analyzeShared,
    limits: uploadLimits,
    settings: config.wiki,
  });
  const intel = new IntelService(db, ledger, rewards, community);
  // Followers of a subject hear of its verified photos, and of proposals merged on items tagged with it.
  const follows = new FollowsService(db, wiki, events, logger);
  wiki.useFollowers(follows);
  intel.onMerged((item, postId) => follows.announceMerged(item, postId));
  const atlas = new AtlasService(db);
  const stockSearch = new StockSearchService(stockClientsFromConfig(config.search), { timeoutMs: config.search.stockTimeoutMs, logger });
  const search = new SearchService({
    db,
    atlas,
    imageObjects,
    stock: stockSearch,
    fetcher,
    signer,
    links: { community: (item) => community.fileUrl(item, 'public'), wikiPhoto: (id, storageKey) => wiki.fileUrl('photos', id, storageKey) },
    // Paid like any analysis: the caller's account for external providers; without a key, local only.
    analyze: (image, payer) => vision.analyze({ image, task: 'all', payer }),
    limits: uploadLimits,
    logger,
  });

  const economy = createEconomy({ db, ledger, logger, config: config.economy });
  const generation = createGeneration({ config: config.generation, db, blobs, fetcher, credits, ledger, styles: economy.styles, jobs, queue, media, logger });
  jobRunner.register(GENERATION_JOB_KIND, generation.handler);
  const featured = new FeaturedService(fetcher, config.scrape.maxPageBytes);
  const mirrors = setUpMirrors({
    settings: config.mirrors,
    limits: uploadLimits,
    db,
    jobs,
    jobRunner,
    queue,
    fetcher,
    imageObjects,
    rewards,
    logger,
  });
  // POST /api/media/mirror records a URL only once the same photo was found there.
  media.useMirrorCheck((item, url) => mirrors.checkMediaMirror(item, url));

  const replaceflow = new ReplaceFlowService({
    db,
    blobs,
    fetcher,
    featured,
    imageObjects,
    community,
    wiki,
    signer,
    quota,
    // Reverse search by Google web detection uses the vision module's Google key and base URL.
    webDetection: config.vision.googleVision ? new GoogleWebDetection({ ...config.vision.googleVision, timeoutMs: config.vision.timeoutMs, maxResults: 20 }) : null,
    // The headline's keywords go to the same stock clients as the search's fourth tier.
    stockSearch: async (keywords, options) => (await stockSearch.search(keywords, options)).images,
    limits: uploadLimits,
    logger,
  });

  return {
    config,
    db,
    events,
    logger,
    blobs,
    fetcher,
    adminToken,
    auth,
    quota,
    admission: new AdmissionService(db, auth, quota),
    imageObjects,
    community,
    claims: new ClaimsService(db, community),
    bounties: new BountiesService(db, ledger, community),
    wiki,
    challenges: new ChallengesService({ db, wiki, rewards }),
    follows,
    atlas,
    intel,
    keyWatch,
    accounts: new AccountsService(db, Object.keys(config.tiers), keyWatch),
    subKeys: new SubKeysService(db, config.subKeysPerAccount, events, keyWatch),
    jobs,
    jobRunner,
    jobFiles: new JobFilesService(db, blobs),
    queue,
    crawler,
    scrape,
    webhooks,
    schedules: new SchedulesService(db, scrape, logger, config.schedules.perAccount),
    exports,
    featured,
    vision,
    signer,
    transforms: new TransformService(db, blobs, { maxDimension: config.transform.maxDimension, maxInputPixels: config.uploadMaxPixels, concurrency: config.transform.concurrency, maxFrames: config.transform.maxFrames }, signer),
    watermarks: new WatermarkService(fetcher, blobs, config.watermark, signer),
    media,
    folders: new FoldersService(db),
    ledger,
    credits,
    rewards,
    collections,
    gallery: new GalleryService(collections, quota, signer),
    stockLists: new StockListsService(db, fetcher, logger, config.uploadMaxBytes),
    economy,
    generation: generation.service,
    search,
    stockSearch,
    mirrors,
    botLinks: new BotLinksService(db, quota, config.telegram),
    botNotices: new BotNoticesService(db),
    replaceflow,
    // Each step calls the same service as its single route (scopes, quota, credits as there).
    pipeline: new PipelineService({
      config: config.pipeline,
      scrape,
      jobs,
      search,
      generation: generation.service,
      vision,
      replaceflow,
      media,
      quota,
      fetcher,
      blobs,
      signer,
      maxImageBytes: config.uploadMaxBytes,
      logger,
    }),
  };
}
