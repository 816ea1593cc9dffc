// The REST route table: every documented path, in one list. Later features add their rows here,
// and test/rest/contract.test.ts needs a row of its own for each.
import type { AnyRoute } from './route.js';
import { apiKeysRoutes } from './routes/api-keys.routes.js';
import { accountsRoutes } from './routes/accounts.routes.js';
import { liveEditorRoutes } from './routes/live-editor.routes.js';
import { searchLinksRoutes } from './routes/search-links.routes.js';
import { featuredRoutes } from './routes/featured.routes.js';
import { scrapeRoutes } from './routes/scrape.routes.js';
import { jobsRoutes } from './routes/jobs.routes.js';
import { automationRoutes } from './routes/automation.routes.js';
import { imagingRoutes } from './routes/imaging.routes.js';
import { mediaRoutes } from './routes/media.routes.js';
import { visionRoutes } from './routes/vision.routes.js';
import { collectionsRoutes } from './routes/collections.routes.js';
import { stockListsRoutes } from './routes/stock-lists.routes.js';
import { serviceRoutes } from './routes/service.routes.js';
import { ledgerRoutes } from './routes/ledger.routes.js';
import { economyRoutes } from './routes/economy.routes.js';
import { communityRoutes } from './routes/community.routes.js';
import { bountiesRoutes } from './routes/bounties.routes.js';
import { wikiRoutes } from './routes/wiki.routes.js';
import { intelRoutes } from './routes/intel.routes.js';
import { challengesRoutes } from './routes/challenges.routes.js';
import { generationRoutes } from './routes/generation.routes.js';
import { searchRoutes } from './routes/search.routes.js';
import { replaceflowRoutes } from './routes/replaceflow.routes.js';
import { pipelineRoutes } from './routes/pipeline.routes.js';
import { mirrorsRoutes } from './routes/mirrors.routes.js';
import { botRoutes } from './routes/bot.routes.js';

export const routes: AnyRoute[] = [...scrapeRoutes, ...jobsRoutes, ...apiKeysRoutes, ...liveEditorRoutes, ...searchLinksRoutes, ...featuredRoutes, ...automationRoutes, ...mediaRoutes, ...collectionsRoutes, ...stockListsRoutes, ...visionRoutes, ...imagingRoutes, ...accountsRoutes, ...ledgerRoutes, ...economyRoutes, ...communityRoutes, ...bountiesRoutes, ...wikiRoutes, ...intelRoutes, ...challengesRoutes, ...generationRoutes, ...searchRoutes, ...replaceflowRoutes, ...pipelineRoutes, ...mirrorsRoutes, ...botRoutes, ...serviceRoutes];
