// GET /api/search-links: deep links into web and reverse image search, declared in src/modules/search-links/search-links.operations.ts.
import { restRoutesOf } from '../derive.js';
import { searchLinksOperations } from '../../src/modules/search-links/search-links.operations.js';

export const searchLinksRoutes = restRoutesOf(searchLinksOperations);
