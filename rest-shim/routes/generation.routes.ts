// Spec "Generation": POST /api/generate, POST /api/replace/generate and POST /api/replace/batch, declared in src/modules/generation/generation.operations.ts.
import { restRoutesOf } from '../derive.js';
import { generationOperations } from '../../src/modules/generation/generation.operations.js';

export const generationRoutes = restRoutesOf(generationOperations);
