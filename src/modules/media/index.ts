// Public surface of the media module: what other modules use of it (a lint rule keeps them to it).
// The image processing behind uploads is the images module (src/modules/images).
export { mediaItemPolicy } from './media.access.js';
export { MediaService } from './media.service.js';
export { FoldersService } from './folders.service.js';
export { signedMediaPath } from './media-urls.js';
// What the community library shares with the library's uploads: tag rules.
export { tagsSchema } from './media.input.js';
// The library's word rules, for the unified search (src/modules/search).
export { buildSearchQuery, type SearchQuery } from './search-query.js';
export { setupMedia } from './media.setup.js';
