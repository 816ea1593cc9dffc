// The REST route table: every documented path, in one list. Later features add their rows here,
// and test/rest/contract.test.ts needs a row of its own for each.
import type { RouteDefinition } from './route.js';
import { platformRoutes } from './routes/platform.routes.js';
import { adminRoutes } from './routes/admin.routes.js';
import { miscRoutes } from './routes/misc.routes.js';

export const routes: RouteDefinition[] = [...platformRoutes, ...miscRoutes, ...adminRoutes];
