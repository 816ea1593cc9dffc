// Spec "Platform": sub-keys, declared in src/modules/api-keys/api-keys.operations.ts.
import { restRoutesOf } from '../derive.js';
import { apiKeysOperations } from '../../src/modules/api-keys/api-keys.operations.js';

export const apiKeysRoutes = restRoutesOf(apiKeysOperations);
