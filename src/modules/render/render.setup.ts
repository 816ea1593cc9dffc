// Builds the render module's one service, the process's shared headless Chromium, and adds it to the
// service registry's type. The browser starts on first use, not here.
import type { Services } from '../../platform/service-registry.js';
import type { PrivateAddressAllowance } from '../../platform/http/address-policy.js';
import { Renderer } from './render.browser.js';
import type { RenderConfig } from './render.settings.js';

declare module '../../platform/service-registry.js' {
  interface Services {
    /** Renders pages in headless Chromium, every connection through the fetcher's address policy. */
    renderer: Renderer;
  }
}

export interface RenderSetup extends Pick<Services, 'logger'> {
  settings: RenderConfig;
  allowPrivateAddresses: PrivateAddressAllowance;
  userAgent: string;
}

export function setupRender({ logger, settings, allowPrivateAddresses, userAgent }: RenderSetup): Pick<Services, 'renderer'> {
  return { renderer: new Renderer({ settings, allowPrivateAddresses, userAgent, logger }) };
}
