// Builds the image wiki's services (subjects and photos, followers, the atlas) and adds them to the
// service registry's type.
import type { Services, UploadLimits } from '../../platform/service-registry.js';
import { AtlasService } from './atlas.service.js';
import { FollowsService } from './follows.service.js';
import { WikiService } from './wiki.service.js';
import type { WikiSettings } from './wiki.settings.js';

declare module '../../platform/service-registry.js' {
  interface Services {
    /** The image wiki: subjects, photos verified by vote, the paid query. */
    wiki: WikiService;
    /** Who follows which wiki subject, and telling them. */
    follows: FollowsService;
    /** The global verified atlas: verified wiki photos and AI-verified community items (the unified search's third tier). */
    atlas: AtlasService;
  }
}

export type WikiSetup = Pick<Services, 'db' | 'blobs' | 'fetcher' | 'imageObjects' | 'rewards' | 'credits' | 'ledger' | 'signer' | 'logger' | 'events' | 'vision'> & {
  limits: UploadLimits;
  settings: WikiSettings;
};

export function setupWiki({ vision, events, ...deps }: WikiSetup): Pick<Services, 'wiki' | 'follows' | 'atlas'> {
  // Wiki photos are analysed whole (labels, caption, text), paid like auto_tag.
  const wiki = new WikiService({ ...deps, analyze: async (image, payer) => vision.analyze({ image, task: 'all', payer }) });
  // Followers of a subject hear of its verified photos.
  const follows = new FollowsService(deps.db, wiki, events, deps.logger);
  wiki.useFollowers(follows);
  return { wiki, follows, atlas: new AtlasService(deps.db) };
}
