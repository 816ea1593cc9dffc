// Public surface of the media module: what other modules use of it (a lint rule keeps them to it).
export { mediaItemPolicy } from './media.access.js';
export { MediaService } from './media.service.js';
export { FoldersService } from './folders.service.js';
export { signedMediaPath } from './media-urls.js';
// What the community library shares with the library's uploads: file processing, tag rules, EXIF GPS.
export { processUpload, hammingDistance, type ProcessedImage } from './image.processor.js';
export { isDegenerateBlockhash } from './information.js';
export { tagsSchema } from './media.input.js';
export { gpsOf } from './exif.js';
export { fetchImageBytes, fingerprintOf, processSharedImage, publicDerivative, type PublicFile, type SharedImage } from './shared-image.js';
// The library's word rules, for the unified search (src/modules/search).
export { buildSearchQuery, type SearchQuery } from './search-query.js';
export { setupMedia } from './media.setup.js';
