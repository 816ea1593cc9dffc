// Public surface of the vision module: what other modules and the composition root use of it (a lint rule keeps modules to it).
export { VisionService } from './vision.service.js';
// Base64 images as the vision routes read them (the unified search's image_data too).
export { decodeBase64 } from './vision.input.js';
// The provider HTTP helper, for other clients of the same providers (ReplaceFlow's Google web detection);
// the ProviderError it throws is the platform's (src/platform/http/provider-error.ts).
export { postJson } from './providers/provider.js';
// Provider choices of an analysis (the pipeline's ocr and analyze steps take the same).
export { PROVIDER_CHOICES, type ProviderChoice } from './vision.types.js';
export { setupVision } from './vision.setup.js';
