// Public surface of the wiki module. Other modules import only this.
export { WikiService, confidenceOf, decision, wikiFilePath, WIKI_FILE_KINDS, type WikiMedia, type WikiSubject, type WikiSettings } from './wiki.service.js';
export { FollowsService, type SubjectEvent, type FollowResult } from './follows.service.js';
export { AtlasService, ORIENTATIONS, type AtlasEntry, type Orientation } from './atlas.service.js';
export { wikiPhotoPolicy, wikiSubjectPolicy } from './wiki.access.js';
export { setupWiki } from './wiki.setup.js';
