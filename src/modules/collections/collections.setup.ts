// Builds the collections module's services and adds them to the service registry's type.
import type { Services } from '../../platform/service-registry.js';
import { CollectionsService } from './collections.service.js';
import { GalleryService } from './gallery.service.js';

declare module '../../platform/service-registry.js' {
  interface Services {
    collections: CollectionsService;
    /** The public gallery pages of shared collections (the token is the capability). */
    gallery: GalleryService;
  }
}

export function setupCollections({ db, quota, signer }: Pick<Services, 'db' | 'quota' | 'signer'>): Pick<Services, 'collections' | 'gallery'> {
  const collections = new CollectionsService(db);
  return { collections, gallery: new GalleryService(collections, quota, signer) };
}
