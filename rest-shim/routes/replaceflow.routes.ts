// Spec "ReplaceFlow": POST /api/replaceflow (a key with the search scope) and POST
// /api/replaceflow/demo (no key, 5 per hour per client address), declared in
// src/modules/replaceflow/replaceflow.operations.ts.
import { restRoutesOf } from '../derive.js';
import { replaceflowOperations } from '../../src/modules/replaceflow/replaceflow.operations.js';

export const replaceflowRoutes = restRoutesOf(replaceflowOperations);
