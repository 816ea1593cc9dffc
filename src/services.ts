// Composition root of the domain services: built once per process from the configuration, one
// module setup after the other (each builds its services from the narrow dependencies it names).
// The type `Services` lives in src/platform/service-registry.ts, completed by each module's setup
// file, so nothing below the root imports this file.
import { CONFIG_VARIABLES, type Config } from './config.js';
import type { Database } from './platform/database/database.js';
import type { EventBus } from './platform/events.js';
import type { Logger } from './platform/logger.js';
import type { BlobStore } from './platform/storage/blob-store.js';
import { SafeFetcher } from './platform/http/safe-fetch.js';
import { UrlSigner } from './platform/url-signer.js';
import type { Services } from './platform/service-registry.js';
import { setupAccounts } from './modules/accounts/index.js';
import { setupQuota, withOperatorTier } from './modules/quota/index.js';
import { setupApiKeys } from './modules/api-keys/index.js';
import { setupLedger } from './modules/ledger/index.js';
import { setupVision } from './modules/vision/index.js';
import { setupJobs } from './modules/jobs/index.js';
import { setupScrape } from './modules/scrape/index.js';
import { setupRender } from './modules/render/index.js';
import { setupAutomation } from './modules/automation/index.js';
import { setupMedia } from './modules/media/index.js';
import { setupImaging } from './modules/imaging/index.js';
import { setupCollections } from './modules/collections/index.js';
import { setupImageObjects } from './modules/image-objects/index.js';
import { setupCommunity } from './modules/community/index.js';
import { setupBounties } from './modules/bounties/index.js';
import { setupWiki } from './modules/wiki/index.js';
import { setupIntel } from './modules/intel/index.js';
import { setupChallenges } from './modules/challenges/index.js';
import { setupSearch } from './modules/search/index.js';
import { createEconomy } from './modules/economy/index.js';
import { createGeneration, GENERATION_JOB_KIND } from './modules/generation/index.js';
import { setupFeatured } from './modules/featured/index.js';
import { setUpMirrors } from './modules/mirrors/index.js';
import { setupReplaceflow } from './modules/replaceflow/index.js';
import { setupStockLists } from './modules/stock-lists/index.js';
import { setupBot } from './modules/bot/index.js';
import { setupPipeline } from './modules/pipeline/index.js';

export type { Services } from './platform/service-registry.js';

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
  const signer = UrlSigner.fromConfig(config.dataDir, config.urlSigningKey);
  const platform = { db, events, logger, blobs, fetcher, signer, adminToken };
  // What any image a caller sends or names may weigh: bytes and decoded pixels.
  const limits = { maxBytes: config.uploadMaxBytes, maxPixels: config.uploadMaxPixels };

  const ledger = setupLedger({ db, settings: config.rewards });
  const { vision } = setupVision({ ...platform, ...ledger, settings: config.vision, maxBytes: config.uploadMaxBytes });
  const render = setupRender({ logger, settings: config.render, allowPrivateAddresses: config.fetch.allowPrivateAddresses, userAgent: config.fetch.userAgent });
  const jobs = setupJobs({ ...platform, settings: config.jobs, redis: config.redisUrl ? { url: config.redisUrl, prefix: config.redisPrefix } : undefined });
  const scrape = setupScrape({
    ...platform,
    ...jobs,
    ...render,
    settings: { fetch: config.fetch, scrape: config.scrape, dataDir: config.dataDir, s3: config.s3, logLevel: config.logLevel },
    renderAuto: config.render.auto,
    withheldEnv: CONFIG_VARIABLES,
    labeler: async (image, accountId) => (await vision.analyze({ image, task: 'describe', payer: accountId })).labels,
  });
  const automation = setupAutomation({
    ...platform,
    ...jobs,
    ...scrape,
    settings: { webhooks: config.webhooks, schedules: config.schedules, exports: config.exports },
    dataDir: config.dataDir,
    publicBaseUrl: config.publicBaseUrl,
    allowPrivateAddresses: config.fetch.allowPrivateAddresses,
  });
  const media = setupMedia({ ...platform, vision, limits });
  const tiers = withOperatorTier(config.tiers);
  const accounts = setupAccounts({ ...platform, tierNames: Object.keys(tiers) });
  const quota = setupQuota({ ...platform, ...accounts, tiers });
  const collections = setupCollections({ ...platform, ...quota });
  const imageObjects = setupImageObjects(platform);
  const community = setupCommunity({ ...platform, ...ledger, ...imageObjects, vision, limits });
  const wiki = setupWiki({ ...platform, ...ledger, ...imageObjects, vision, limits, settings: config.wiki });
  const intel = setupIntel({ ...platform, ...ledger, ...community, ...wiki });
  const search = setupSearch({ ...platform, ...wiki, ...imageObjects, ...community, vision, limits, settings: config.search });
  const economy = createEconomy({ ...platform, ...ledger, config: config.economy });
  const generation = createGeneration({ ...platform, ...ledger, ...jobs, ...media, styles: economy.styles, config: config.generation });
  jobs.jobRunner.register(GENERATION_JOB_KIND, generation.handler);
  const featured = setupFeatured({ fetcher, ...render, maxPageBytes: config.scrape.maxPageBytes });
  const mirrors = setUpMirrors({ ...platform, ...jobs, ...imageObjects, ...ledger, settings: config.mirrors, limits });
  // POST /api/media/mirror records a URL only once the same photo was found there.
  media.media.useMirrorCheck((item, url) => mirrors.checkMediaMirror(item, url));
  const { googleVision } = config.vision;
  const replaceflow = setupReplaceflow({
    ...platform,
    ...featured,
    ...imageObjects,
    ...community,
    ...wiki,
    ...quota,
    ...search,
    google: googleVision && { ...googleVision, timeoutMs: config.vision.timeoutMs },
    limits,
  });

  return {
    ...platform,
    ...accounts,
    ...quota,
    ...imageObjects,
    ...community,
    ...setupBounties({ ...platform, ...ledger, ...community }),
    ...wiki,
    ...setupChallenges({ ...platform, ...wiki, ...ledger }),
    ...intel,
    ...setupApiKeys({ ...platform, ...accounts, perAccount: config.subKeysPerAccount }),
    ...jobs,
    ...scrape,
    ...render,
    ...automation,
    ...featured,
    vision,
    ...setupImaging({ ...platform, settings: { transform: config.transform, watermark: config.watermark }, maxInputPixels: config.uploadMaxPixels }),
    ...media,
    ...ledger,
    ...collections,
    ...setupStockLists({ ...platform, maxBytes: config.uploadMaxBytes }),
    economy,
    generation: generation.service,
    ...search,
    mirrors,
    ...setupBot({ ...platform, ...quota, settings: config.telegram }),
    ...replaceflow,
    ...setupPipeline({ ...platform, ...jobs, ...scrape, ...search, ...media, ...quota, ...replaceflow, vision, generation: generation.service, settings: config.pipeline, maxImageBytes: config.uploadMaxBytes }),
  };
}
