// Spec "Featured image": GET /api/featured-image, declared in src/modules/featured/featured.operations.ts.
import { restRoutesOf } from '../derive.js';
import { featuredOperations } from '../../src/modules/featured/featured.operations.js';

export const featuredRoutes = restRoutesOf(featuredOperations);
