// GraphQL surface of automation (spec "Automation"): webhooks, schedules and exports.
import './webhooks.schema.js';
import './schedules.schema.js';
import './exports/exports.schema.js';
