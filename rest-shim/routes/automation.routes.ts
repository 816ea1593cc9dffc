// Spec "Automation": webhooks (with their delivery log, our route), schedules and exports, declared in
// src/modules/automation/automation.operations.ts.
import { restRoutesOf } from '../derive.js';
import { automationOperations } from '../../src/modules/automation/automation.operations.js';

export const automationRoutes = restRoutesOf(automationOperations);
