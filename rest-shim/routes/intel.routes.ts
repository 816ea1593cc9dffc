// Spec "Wiki": image intel, POST /api/wiki/image/{id}/intel and POST /api/wiki/image/intel/{id}/resolve,
// and ours: an image's intel policy, its published intel and its proposals, declared in
// src/modules/intel/intel.operations.ts.
import { restRoutesOf } from '../derive.js';
import { intelOperations } from '../../src/modules/intel/intel.operations.js';

export const intelRoutes = restRoutesOf(intelOperations);
