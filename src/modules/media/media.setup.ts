// Builds the media library's services and adds them to the service registry's type.
import type { Services, UploadLimits } from '../../platform/service-registry.js';
import { FoldersService } from './folders.service.js';
import { MediaService } from './media.service.js';

declare module '../../platform/service-registry.js' {
  interface Services {
    media: MediaService;
    folders: FoldersService;
  }
}

export function setupMedia({ db, blobs, signer, vision, limits }: Pick<Services, 'db' | 'blobs' | 'signer' | 'vision'> & { limits: UploadLimits }): Pick<Services, 'media' | 'folders'> {
  const media = new MediaService(db, blobs, limits, signer);
  // auto_tag analyses the upload whole, paid like any analysis.
  media.useAutoTagger(async (image, accountId) => {
    const result = await vision.analyze({ image, task: 'all', payer: accountId });
    return { labels: result.labels, caption: result.caption, text: result.text };
  });
  return { media, folders: new FoldersService(db) };
}
