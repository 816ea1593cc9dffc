// The REST route table: every documented path, in one list. Later features add their rows here,
// and test/rest/contract.test.ts needs a row of its own for each.
import type { AnyRoute } from './route.js';
import { platformRoutes } from './routes/platform.routes.js';
import { adminRoutes } from './routes/admin.routes.js';
import { miscRoutes } from './routes/misc.routes.js';
import { jobsRoutes } from './routes/jobs.routes.js';

export const routes: AnyRoute[] = [...jobsRoutes, ...platformRoutes, ...miscRoutes, ...adminRoutes];
