// Spec "Pipeline": POST /api/pipeline and GET /api/pipeline/actions, declared in
// src/modules/pipeline/pipeline.operations.ts.
import { restRoutesOf } from '../derive.js';
import { pipelineOperations } from '../../src/modules/pipeline/pipeline.operations.js';

export const pipelineRoutes = restRoutesOf(pipelineOperations);
