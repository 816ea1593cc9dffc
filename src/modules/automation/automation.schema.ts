// GraphQL surface of automation (spec "Automation"): webhooks and schedules.
import './webhooks.schema.js';
import './schedules.schema.js';
