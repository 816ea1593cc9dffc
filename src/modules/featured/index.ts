// Public surface of the featured module: what other modules and the composition root use of it (a lint rule keeps modules to it).
export { FeaturedService } from './featured.service.js';
export { type FeaturedCandidate, type FeaturedSource } from './featured.extractor.js';
export { setupFeatured } from './featured.setup.js';
