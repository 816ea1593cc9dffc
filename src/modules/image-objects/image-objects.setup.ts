// Builds the image-objects service and adds it to the service registry's type.
import type { Services } from '../../platform/service-registry.js';
import { ImageObjectsService } from './image-objects.service.js';

declare module '../../platform/service-registry.js' {
  interface Services {
    /** The one identity of an image across the community library, the wiki, mirrors and reverse search. */
    imageObjects: ImageObjectsService;
  }
}

export function setupImageObjects({ db }: Pick<Services, 'db'>): Pick<Services, 'imageObjects'> {
  return { imageObjects: new ImageObjectsService(db) };
}
