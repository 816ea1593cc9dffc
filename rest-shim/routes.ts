// The REST route table: every documented path, in one list. Later features add their rows here,
// and test/rest/contract.test.ts needs a row of its own for each.
import type { AnyRoute } from './route.js';
import { platformRoutes } from './routes/platform.routes.js';
import { adminRoutes } from './routes/admin.routes.js';
import { miscRoutes } from './routes/misc.routes.js';
import { jobsRoutes } from './routes/jobs.routes.js';
import { automationRoutes } from './routes/automation.routes.js';
import { transformRoutes } from './routes/transform.routes.js';
import { watermarkRoutes } from './routes/watermark.routes.js';
import { mediaRoutes } from './routes/media.routes.js';
import { visionRoutes } from './routes/vision.routes.js';
import { collectionsRoutes } from './routes/collections.routes.js';
import { stockListsRoutes } from './routes/stock-lists.routes.js';
import { serviceRoutes } from './routes/service.routes.js';
import { ledgerRoutes } from './routes/ledger.routes.js';

export const routes: AnyRoute[] = [...jobsRoutes, ...platformRoutes, ...miscRoutes, ...automationRoutes, ...mediaRoutes, ...collectionsRoutes, ...stockListsRoutes, ...visionRoutes, ...transformRoutes, ...watermarkRoutes, ...adminRoutes, ...ledgerRoutes, ...serviceRoutes];
