// Public surface of the automation module: what other modules and the composition root use of it (a lint rule keeps modules to it).
export { startAutomation, type Loop } from './loop.js';
export { SchedulesService } from './schedules.service.js';
export { WebhooksService } from './webhooks.service.js';
export { ExportsService } from './exports/exports.service.js';
export { setUpExports } from './exports/exports.setup.js';
export { CredentialBox } from './exports/credential-box.js';
export { setupAutomation } from './automation.setup.js';
