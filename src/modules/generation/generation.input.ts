// Inputs of the generation routes (spec "Generation", "Limits"), validated once at the edge.
import { z } from 'zod';
import { ORIENTATIONS } from './generation.prompts.js';

/** Longest prompt or description, in characters (DALL-E 2's limit; the prompt also travels in Pollinations' URL). */
export const MAX_PROMPT_CHARS = 1000;
export const MIN_COUNT = 1;
export const MAX_COUNT = 4;
export const DEFAULT_COUNT = 2;
export const MAX_DESCRIPTIONS = 10;
/** The longest vendor_key taken (provider keys are far shorter). */
export const MAX_VENDOR_KEY_CHARS = 512;

const text = (field: string, what: string) =>
  z
    .string({ error: (issue) => (issue.input === undefined || issue.input === null ? `${field} is required: ${what}` : 'expected a string') })
    .trim()
    .min(1, `${field} is required: ${what}`)
    .max(MAX_PROMPT_CHARS, `expected at most ${MAX_PROMPT_CHARS} characters`);

/** A preset slug; whether it exists and may be used is the economy's styles service's to say (400 or 402). */
const style = z.string({ error: 'expected a style such as professional, cinematic, minimalist or cyberpunk' }).trim().toLowerCase().max(60, 'expected at most 60 characters').default('professional');

const count = z
  .number({ error: `expected an integer from ${MIN_COUNT} to ${MAX_COUNT}` })
  .int(`expected an integer from ${MIN_COUNT} to ${MAX_COUNT}`)
  .min(MIN_COUNT, `expected an integer from ${MIN_COUNT} to ${MAX_COUNT}`)
  .max(MAX_COUNT, `expected an integer from ${MIN_COUNT} to ${MAX_COUNT}`)
  .default(DEFAULT_COUNT)
  .describe('1 to 4, default 2');

// The whole input is judged before anything else (a configured provider, credits): a field these
// routes do not take (`width`, a misspelt `styel`) is a 400 naming it (platform/validation.ts), not
// silently dropped and answered with 503 or an image the caller did not ask for.

const orientation = z.enum(ORIENTATIONS, { error: `expected one of ${ORIENTATIONS.join(', ')}` }).default('landscape').describe('default landscape');

/** `width: unknown field; expected prompt, style, ...`: a strict object's refusal names the field. */
const strict = <S extends z.ZodRawShape>(shape: S) => {
  const expected = Object.keys(shape).join(', ');
  return z.strictObject(shape, {
    error: (issue) => (issue.code === 'unrecognized_keys' ? `${issue.keys.join(', ')}: unknown field; expected ${expected}` : `expected an object of ${expected}`),
  });
};

export const generateSchema = strict({
  prompt: text('prompt', 'what the image should show'),
  style: style.describe('professional (default), cinematic, minimalist, cyberpunk, or an unlocked premium preset'),
  orientation,
  count,
  vendor_key: z
    .string({ error: 'expected a string' })
    .trim()
    .min(1, 'expected a key')
    .max(MAX_VENDOR_KEY_CHARS, `expected at most ${MAX_VENDOR_KEY_CHARS} characters`)
    .regex(/^[\x21-\x7e]+$/, 'expected printable characters without spaces')
    .optional()
    .describe('Your own key for one provider: <provider>:<key> (pollinations, bfl, openai), or a bare key for the first configured provider; never stored or logged'),
}).describe('POST /api/generate (same names, same defaults)');

export const replaceGenerateSchema = strict({
  description: text('description', 'what the replacement image should show'),
  style: style.describe('default professional'),
  count,
}).describe('POST /api/replace/generate');

export const batchSchema = strict({
  descriptions: z
    .array(text('description', 'what the image should show'), { error: `descriptions is required: an array of 1 to ${MAX_DESCRIPTIONS} strings` })
    .min(1, `expected 1 to ${MAX_DESCRIPTIONS} descriptions`)
    .max(MAX_DESCRIPTIONS, `expected at most ${MAX_DESCRIPTIONS} descriptions`)
    .describe('1 to 10'),
  style: style.describe('default professional'),
}).describe('POST /api/replace/batch: one image per description');

export type GenerateInput = z.output<typeof generateSchema>;
export type ReplaceGenerateInput = z.output<typeof replaceGenerateSchema>;
export type BatchInput = z.output<typeof batchSchema>;
