// Builds the automation module's services (webhooks, schedules, exports) and adds them to the
// service registry's type.
import type { PrivateAddressAllowance } from '../../platform/http/address-policy.js';
import type { Services } from '../../platform/service-registry.js';
import type { ExportsConfig, SchedulesConfig, WebhooksConfig } from './automation.settings.js';
import { CredentialBox } from './exports/credential-box.js';
import type { ExportsService } from './exports/exports.service.js';
import { setUpExports } from './exports/exports.setup.js';
import { SchedulesService } from './schedules.service.js';
import { WebhooksService } from './webhooks.service.js';

declare module '../../platform/service-registry.js' {
  interface Services {
    webhooks: WebhooksService;
    schedules: SchedulesService;
    /** Exports of library items to WordPress and Shopify (jobs). */
    exports: ExportsService;
  }
}

export interface AutomationSetup extends Pick<Services, 'db' | 'blobs' | 'logger' | 'fetcher' | 'signer' | 'jobs' | 'jobRunner' | 'queue' | 'scrape'> {
  settings: { webhooks: WebhooksConfig; schedules: SchedulesConfig; exports: ExportsConfig };
  /** Where the key that seals secrets is kept when EXPORT_SECRET_KEY is unset. */
  dataDir: string;
  publicBaseUrl?: string;
  allowPrivateAddresses: PrivateAddressAllowance;
}

export function setupAutomation(deps: AutomationSetup): Pick<Services, 'webhooks' | 'schedules' | 'exports'> {
  const { db, logger, fetcher, jobs, settings } = deps;
  // Seals the secrets the service keeps (export credentials, webhook signing secrets).
  const box = CredentialBox.fromConfig(deps.dataDir, settings.exports.secretKey);
  const webhooks = new WebhooksService(db, fetcher, logger, box, { ...settings.webhooks, allowPrivateAddresses: deps.allowPrivateAddresses, publicBaseUrl: deps.publicBaseUrl });
  // Inside the transaction that finishes a job: its deliveries are written with it or not at all.
  jobs.onFinished((job, tx) => webhooks.enqueueJobEvent(job, tx));
  const exports = setUpExports({ ...deps, config: { publicBaseUrl: deps.publicBaseUrl, exports: settings.exports }, box });
  return { webhooks, schedules: new SchedulesService(db, deps.scrape, logger, settings.schedules.perAccount), exports };
}
