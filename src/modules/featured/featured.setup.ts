// Builds the featured-image service and adds it to the service registry's type.
import type { Services } from '../../platform/service-registry.js';
import { FeaturedService } from './featured.service.js';

declare module '../../platform/service-registry.js' {
  interface Services {
    featured: FeaturedService;
  }
}

export function setupFeatured({ fetcher, renderer, maxPageBytes }: Pick<Services, 'fetcher' | 'renderer'> & { maxPageBytes: number }): Pick<Services, 'featured'> {
  return { featured: new FeaturedService(fetcher, maxPageBytes, renderer) };
}
