// Public surface of the replaceflow module: what the composition root and the bench use of it (a lint rule keeps modules to it).
export { ReplaceFlowService, PHASH_MATCH_MAX_DISTANCE, type KeywordImageSearch, type ReplaceFlowResult } from './replaceflow.service.js';
export { GoogleWebDetection } from './google-web-detection.js';
export { compareMarks, type MarkComparison } from './watermark-detector.js';
// The request of POST /api/replaceflow, which the pipeline's replace step validates with too.
export { replaceflowSchema } from './replaceflow.input.js';
export { setupReplaceflow } from './replaceflow.setup.js';
