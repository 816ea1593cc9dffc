// The REST route table: every documented path, in one list. A module's rows are made from its
// operations (src/modules/<module>/<module>.operations.ts, `rest: { route }`); the few hand-written
// rows live in routes/. test/rest/contract.test.ts needs a row of its own for each path.
import type { AnyRoute } from './route.js';
import { restRoutesOf } from './derive.js';
import { jobsRoutes } from './routes/jobs.routes.js';
import { mediaRoutes } from './routes/media.routes.js';
import { collectionsRoutes } from './routes/collections.routes.js';
import { imagingRoutes } from './routes/imaging.routes.js';
import { communityRoutes } from './routes/community.routes.js';
import { wikiRoutes } from './routes/wiki.routes.js';
import { serviceRoutes } from './routes/service.routes.js';
import { accountsOperations } from '../src/modules/accounts/accounts.operations.js';
import { apiKeysOperations } from '../src/modules/api-keys/api-keys.operations.js';
import { automationOperations } from '../src/modules/automation/automation.operations.js';
import { botOperations } from '../src/modules/bot/bot.operations.js';
import { bountyOperations } from '../src/modules/bounties/bounties.operations.js';
import { challengeOperations } from '../src/modules/challenges/challenges.operations.js';
import { economyOperations } from '../src/modules/economy/economy.operations.js';
import { featuredOperations } from '../src/modules/featured/featured.operations.js';
import { generationOperations } from '../src/modules/generation/generation.operations.js';
import { intelOperations } from '../src/modules/intel/intel.operations.js';
import { ledgerOperations } from '../src/modules/ledger/ledger.operations.js';
import { liveEditorOperations } from '../src/modules/live-editor/live-editor.operations.js';
import { mirrorsOperations } from '../src/modules/mirrors/mirrors.operations.js';
import { pipelineOperations } from '../src/modules/pipeline/pipeline.operations.js';
import { replaceflowOperations } from '../src/modules/replaceflow/replaceflow.operations.js';
import { scrapeOperations } from '../src/modules/scrape/scrape.operations.js';
import { searchLinksOperations } from '../src/modules/search-links/search-links.operations.js';
import { searchOperations } from '../src/modules/search/search.operations.js';
import { stockListOperations } from '../src/modules/stock-lists/stock-lists.operations.js';
import { visionOperations } from '../src/modules/vision/vision.operations.js';

/** The table, in matching order; each entry names the spec section its rows answer ("ours" where the spec has none). */
export const routes: AnyRoute[] = [
  ...restRoutesOf(scrapeOperations), // Scraping: POST /api/scrape (jobs.routes.ts polls it)
  ...jobsRoutes,
  ...restRoutesOf(apiKeysOperations), // Platform: sub-keys
  ...restRoutesOf(liveEditorOperations), // Live editor
  ...restRoutesOf(searchLinksOperations), // Search links: deep links into web and reverse image search
  ...restRoutesOf(featuredOperations), // Featured image
  ...restRoutesOf(automationOperations), // Automation: webhooks (and ours: their delivery log), schedules, exports
  ...mediaRoutes,
  ...collectionsRoutes,
  ...restRoutesOf(stockListOperations), // Media library and Community: stock lists, sharing, joining
  ...restRoutesOf(visionOperations), // Vision, and the legacy POST /api/ocr (Versioning)
  ...imagingRoutes,
  ...restRoutesOf(accountsOperations), // ours: the operator's routes behind the admin token (the CLI uses them)
  ...restRoutesOf(ledgerOperations), // ours: the operator's grants and reward settings
  ...restRoutesOf(economyOperations), // Economy: bridge, referrals, styles; ours: partner link, one conversion, coin grant
  ...communityRoutes,
  ...restRoutesOf(bountyOperations), // Economy: bounties; ours: cancelling one
  ...wikiRoutes,
  ...restRoutesOf(intelOperations), // Wiki: image intel; ours: its policy, published intel, proposals
  ...restRoutesOf(challengeOperations), // Community: the fact-checking challenge; ours: the operator's challenges
  ...restRoutesOf(generationOperations), // Generation
  ...restRoutesOf(searchOperations), // Search: the unified ranked search
  ...restRoutesOf(replaceflowOperations), // ReplaceFlow (and its keyless demo)
  ...restRoutesOf(pipelineOperations), // Pipeline
  ...restRoutesOf(mirrorsOperations), // Platform: bulk mirror
  ...restRoutesOf(botOperations), // ours: the Telegram chat bot's link
  ...serviceRoutes,
];
