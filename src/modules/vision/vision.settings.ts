// What configuration says about image analysis (src/config.ts reads it): the external providers
// (each configured when its key is set), their order, and the local models. A leaf file (zod only).
import { z } from 'zod';
import { boolish, optionalSecret } from '../../platform/env.js';

const EXTERNAL_PROVIDERS = ['openai', 'google_vision', 'ocr_space'] as const;
type ExternalProvider = (typeof EXTERNAL_PROVIDERS)[number];

/** Image analysis (spec "Vision"): external providers are configured when their key is set. */
export interface VisionConfig {
  /** Order auto mode tries the configured external providers in (local always comes last). */
  order: ExternalProvider[];
  timeoutMs: number;
  maxPixels: number;
  openai?: { apiKey: string; baseUrl: string; model: string };
  googleVision?: { apiKey: string; baseUrl: string };
  ocrSpace?: { apiKey: string; baseUrl: string; engine: 1 | 2 };
  local: {
    enabled: boolean;
    threads: number;
    idleTimeoutMs: number;
    maxQueue: number;
    taskTimeoutMs: number;
    /** Tesseract word confidence (0 to 100) below which words are dropped. */
    ocrMinConfidence: number;
    /** Detector score (0 to 1) below which objects are dropped. */
    labelMinScore: number;
  };
}

/** The VISION_* variables, spread into the configuration's schema. */
export const visionEnvShape = {
  VISION_PROVIDER_ORDER: z
    .string()
    .default('openai,google_vision,ocr_space')
    .transform((text, ctx) => {
      const names = text.split(',').map((n) => n.trim()).filter(Boolean);
      const known: readonly string[] = EXTERNAL_PROVIDERS;
      const bad = names.find((n) => !known.includes(n));
      if (bad || new Set(names).size !== names.length) {
        ctx.addIssue({ code: 'custom', message: `VISION_PROVIDER_ORDER: a comma-separated list of distinct ${known.join(', ')}${bad ? ` (not ${bad})` : ''}` });
        return z.NEVER;
      }
      return names as ExternalProvider[];
    })
    .describe('order in which `provider: auto` tries the configured external vision providers (the local one always comes last)'),
  VISION_TIMEOUT_MS: z.coerce.number().int().min(100).max(300_000).default(30_000).describe('deadline of one call to an external vision provider (then auto falls back)'),
  VISION_MAX_PIXELS: z.coerce.number().int().positive().default(40_000_000).describe('largest image (width x height) vision analyses; larger ones get 400'),
  VISION_OPENAI_API_KEY: optionalSecret.describe('enables provider `openai` (an OpenAI-compatible Chat Completions API with vision)'),
  VISION_OPENAI_BASE_URL: z.string().url().default('https://api.openai.com/v1').describe('base URL of that API (any OpenAI-compatible server)'),
  VISION_OPENAI_MODEL: z.string().min(1).default('gpt-4o-mini').describe('vision-capable chat model to ask'),
  VISION_GOOGLE_API_KEY: optionalSecret.describe("enables provider `google_vision` (Google Cloud Vision API key), and ReplaceFlow's reverse search (web detection)"),
  VISION_GOOGLE_BASE_URL: z.string().url().default('https://vision.googleapis.com/v1').describe('base URL of Cloud Vision (both uses)'),
  VISION_OCR_SPACE_API_KEY: optionalSecret.describe('enables provider `ocr_space` (OCR.space API key)'),
  VISION_OCR_SPACE_BASE_URL: z.string().url().default('https://api.ocr.space').describe('base URL of OCR.space (PRO plans have their own)'),
  VISION_OCR_SPACE_ENGINE: z.enum(['1', '2']).default('2').transform((v) => Number(v) as 1 | 2).describe('OCR.space engine, `1` or `2`'),
  VISION_LOCAL_ENABLED: boolish.default(true).describe('the local vision provider (tesseract.js OCR, object labels; no network)'),
  VISION_LOCAL_THREADS: z.coerce.number().int().min(1).max(8).default(1).describe('worker threads of the local provider (each holds its own models, about 300 MB)'),
  VISION_LOCAL_IDLE_MS: z.coerce.number().int().min(1_000).default(30_000).describe('an idle local worker thread ends after this, freeing the memory its models hold; the next analysis loads them again'),
  VISION_LOCAL_MAX_QUEUE: z.coerce.number().int().min(0).default(16).describe('images waiting for a local thread; beyond it 503'),
  VISION_LOCAL_TIMEOUT_MS: z.coerce.number().int().min(1_000).default(60_000).describe('longest local analysis of one image'),
  VISION_OCR_MIN_CONFIDENCE: z.coerce.number().min(0).max(100).default(60).describe('local OCR: lines and words read with less confidence (0 to 100) are dropped'),
  VISION_LABEL_MIN_SCORE: z.coerce.number().min(0).max(1).default(0.4).describe('vision labels: the detector score (0 to 1) a label needs to be reported'),
};

type VisionEnv = z.output<z.ZodObject<typeof visionEnvShape>>;

export function visionConfigFrom(e: VisionEnv): VisionConfig {
  return {
    order: e.VISION_PROVIDER_ORDER,
    timeoutMs: e.VISION_TIMEOUT_MS,
    maxPixels: e.VISION_MAX_PIXELS,
    openai: e.VISION_OPENAI_API_KEY ? { apiKey: e.VISION_OPENAI_API_KEY, baseUrl: e.VISION_OPENAI_BASE_URL, model: e.VISION_OPENAI_MODEL } : undefined,
    googleVision: e.VISION_GOOGLE_API_KEY ? { apiKey: e.VISION_GOOGLE_API_KEY, baseUrl: e.VISION_GOOGLE_BASE_URL } : undefined,
    ocrSpace: e.VISION_OCR_SPACE_API_KEY ? { apiKey: e.VISION_OCR_SPACE_API_KEY, baseUrl: e.VISION_OCR_SPACE_BASE_URL, engine: e.VISION_OCR_SPACE_ENGINE } : undefined,
    local: {
      enabled: e.VISION_LOCAL_ENABLED,
      threads: e.VISION_LOCAL_THREADS,
      idleTimeoutMs: e.VISION_LOCAL_IDLE_MS,
      maxQueue: e.VISION_LOCAL_MAX_QUEUE,
      taskTimeoutMs: e.VISION_LOCAL_TIMEOUT_MS,
      ocrMinConfidence: e.VISION_OCR_MIN_CONFIDENCE,
      labelMinScore: e.VISION_LABEL_MIN_SCORE,
    },
  };
}
