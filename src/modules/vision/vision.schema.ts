// GraphQL types of image analysis (the analyzeImage mutation is declared in vision.operations.ts).
import { builder } from '../../graphql/builder.js';
import { PROVIDER_CHOICES, VISION_TASKS } from './vision.types.js';
import type { TimedVisionResult } from './vision.service.js';

export const VisionTaskEnum = builder.enumType('VisionTask', {
  description: 'ocr: text only; describe: caption and labels; all: both',
  values: VISION_TASKS,
});

export const VisionProviderEnum = builder.enumType('VisionProvider', {
  description: 'auto tries the configured external providers in order (each costs 1 API credit, so only while the account has credits), then local (free)',
  values: PROVIDER_CHOICES,
});

export const VisionResultRef = builder.objectRef<TimedVisionResult>('VisionResult').implement({
  description: 'Spec "Vision result"; fields the task did not ask for are empty',
  fields: (t) => ({
    text: t.exposeString('text'),
    caption: t.exposeString('caption'),
    labels: t.exposeStringList('labels'),
    providerUsed: t.exposeString('providerUsed', { description: 'openai, google_vision, ocr_space or local' }),
    confidence: t.exposeFloat('confidence', { description: '0 to 1' }),
    timestamp: t.exposeFloat('timestamp', { description: 'Seconds since the epoch when the analysis finished' }),
  }),
});
