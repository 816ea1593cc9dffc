// Builds the vision service and adds it to the service registry's type.
import type { Services } from '../../platform/service-registry.js';
import { VisionService } from './vision.service.js';
import type { VisionConfig } from './vision.settings.js';

declare module '../../platform/service-registry.js' {
  interface Services {
    vision: VisionService;
  }
}

export function setupVision({ logger, credits, settings, maxBytes }: Pick<Services, 'logger' | 'credits'> & { settings: VisionConfig; maxBytes: number }): Pick<Services, 'vision'> {
  const vision = new VisionService(settings, logger, { maxBytes });
  // External vision providers cost credits, also for ai_labeling and auto_tag (auto mode: paid while the account can pay, else local).
  vision.useBilling(credits);
  return { vision };
}
