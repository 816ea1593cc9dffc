// Spec "Platform": POST /api/platform/bulk-mirror and GET /api/platform/bulk-mirror/{job_id},
// declared in src/modules/mirrors/mirrors.operations.ts.
import { restRoutesOf } from '../derive.js';
import { mirrorsOperations } from '../../src/modules/mirrors/mirrors.operations.js';

export const mirrorsRoutes = restRoutesOf(mirrorsOperations);
