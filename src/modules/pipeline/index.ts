// Public surface of the pipeline module (spec "Pipeline"): the service the composition root builds.
export { PipelineService, type PipelineResult, type PipelineCatalog, type StepResult, type StepError } from './pipeline.service.js';
export type { PipelineDeps } from './pipeline.deps.js';
export { MAX_STEPS, pipelineRequestSchema } from './pipeline.input.js';
export { pipelineConfigFrom, pipelineEnvShape, type PipelineConfig } from './pipeline.settings.js';
export { ACTION_NAMES, type ActionName } from './actions/action.js';
export { setupPipeline } from './pipeline.setup.js';
