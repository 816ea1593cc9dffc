// Shared vocabulary of image analysis (spec "Vision"): tasks, provider names, results.

export const VISION_TASKS = ['ocr', 'describe', 'all'] as const;
export type VisionTask = (typeof VISION_TASKS)[number];

/** The external providers, in the spec's <provider_1>, <provider_2>, <provider_3> order. */
export const EXTERNAL_PROVIDERS = ['openai', 'google_vision', 'ocr_space'] as const;
export type ExternalProviderName = (typeof EXTERNAL_PROVIDERS)[number];
export type ProviderName = ExternalProviderName | 'local';

export const PROVIDER_CHOICES = ['auto', ...EXTERNAL_PROVIDERS, 'local'] as const;
export type ProviderChoice = (typeof PROVIDER_CHOICES)[number];

/** What every provider answers; fields a task does not ask for are '' or []. */
export interface VisionResult {
  text: string;
  caption: string;
  labels: string[];
  providerUsed: ProviderName;
  /** 0 to 1, derived from the provider's own scores (see docs/rest-api.md "Vision"). */
  confidence: number;
}

/** A provider's result before the service stamps it with the provider name. */
export type ProviderResult = Omit<VisionResult, 'providerUsed'>;

/** The image as handed to a provider: checked bytes and what sharp saw in them. */
export interface InspectedImage {
  bytes: Buffer;
  format: string;
  mime: string;
  width: number;
  height: number;
}

/** Confidence reported when nothing was recognised (no text, no objects). */
export const NOTHING_FOUND_CONFIDENCE = 0.2;
/** Confidence of a provider that found something but gives no score of its own (OCR.space). */
export const UNSCORED_CONFIDENCE = 0.7;

export function clamp01(value: number): number {
  if (!Number.isFinite(value)) return 0;
  return Math.min(1, Math.max(0, value));
}

/** Rounds to 3 decimals: scores are estimates, not measurements to 16 digits. */
export function roundConfidence(value: number): number {
  return Math.round(clamp01(value) * 1000) / 1000;
}
