// Public surface of the imaging module: what other modules and the composition root use of it (a lint rule keeps modules to it).
export { TransformService } from './transform.service.js';
export { WatermarkService } from './watermark.service.js';
export { setupImaging } from './imaging.setup.js';
