// Public surface of the vision module: what other modules and the composition root use of it (a lint rule keeps modules to it).
export { VisionService } from './vision.service.js';
