// Public surface of the media module: what other modules use of it (a lint rule keeps them to it).
export { mediaItemPolicy } from './media.access.js';
export { MediaService } from './media.service.js';
export { FoldersService } from './folders.service.js';
