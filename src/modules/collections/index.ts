// Public surface of the collections module: what other modules and the composition root use of it (a lint rule keeps modules to it).
export { CollectionsService } from './collections.service.js';
export { GalleryService } from './gallery.service.js';
export { setupCollections } from './collections.setup.js';
