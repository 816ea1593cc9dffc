// Image analysis as callers see it, stated once: the answer (REST names, src/platform/wire.ts) and
// the GraphQL types made from it (the analyzeImage mutation is declared in vision.operations.ts).
import { z } from 'zod';
import { answerEnum, answerObject } from '../../graphql/answer-object.js';
import { PROVIDER_CHOICES, VISION_TASKS } from './vision.types.js';
import type { TimedVisionResult } from './vision.service.js';

export const VisionTaskEnum = answerEnum('VisionTask', {
  description: 'ocr: text only; describe: caption and labels; all: both',
  values: VISION_TASKS,
});

export const VisionProviderEnum = answerEnum('VisionProvider', {
  description: 'auto tries the configured external providers in order (each costs 1 API credit, so only while the account has credits), then local (free)',
  values: PROVIDER_CHOICES,
});

export const providerUsed = z.string().describe('openai, google_vision, ocr_space or local');
export const confidence = z.number().min(0).max(1);
export const seconds = z.number().describe('seconds since the epoch when the analysis finished');

/** What an analysis found; REST answers it under `data`, beside `timestamp`. */
export const visionResult = z.object({ text: z.string(), caption: z.string(), labels: z.array(z.string()), provider_used: providerUsed, confidence });

export const VisionResultRef = answerObject<TimedVisionResult>('VisionResult', visionResult, {
  description: 'Spec "Vision result"; fields the task did not ask for are empty',
  fields: () => ({ confidence: { description: '0 to 1' } }),
  more: (t) => ({ timestamp: t.exposeFloat('timestamp', { description: 'Seconds since the epoch when the analysis finished' }) }),
});
