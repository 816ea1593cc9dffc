// Spec "Search": POST /api/images/search, the unified ranked search, declared in
// src/modules/search/search.operations.ts (no key needed; a key that is sent is checked).
import { restRoutesOf } from '../derive.js';
import { searchOperations } from '../../src/modules/search/search.operations.js';

export const searchRoutes = restRoutesOf(searchOperations);
