// What an imaging input may be: the only statement of it (the services parse with these; the REST
// route table and the OpenAPI document take them from here, GraphQL's descriptions their lists).
import { z } from 'zod';

// ---- transformations (optimize) ----------------------------------------------------------------

export const TRANSFORM_FORMATS = ['webp', 'jpg', 'png', 'avif'] as const;
export type TransformFormat = (typeof TRANSFORM_FORMATS)[number];
/** Another name a format may be asked by. */
const FORMAT_ALIASES = { jpeg: 'jpg' } as const satisfies Record<string, TransformFormat>;
const FORMAT_NAMES = [...TRANSFORM_FORMATS, ...(Object.keys(FORMAT_ALIASES) as Array<keyof typeof FORMAT_ALIASES>)] as const;

export const DEFAULT_WIDTH = 1200;
export const DEFAULT_FORMAT: TransformFormat = 'webp';

const got = (input: unknown, length: number) => `, got ${JSON.stringify(String(input).slice(0, length))}`;
const widthMessage = 'expected a positive integer (pixels)';
const width = z.number({ error: widthMessage }).int(widthMessage).min(1, widthMessage);
const qualityError = { error: (issue: { input?: unknown }) => `expected 'auto' or an integer from 1 to 100${got(issue.input, 20)}` };

/**
 * optimize's parameters. width's upper bound is the server's (TRANSFORM_MAX_DIMENSION): the
 * service parses with transformSchemaFor(that bound); absent width is 1200 or that bound.
 */
export const transformSchema = z.object({
  width: width.optional().describe(`pixels, at most TRANSFORM_MAX_DIMENSION (default ${DEFAULT_WIDTH}); never upscales`),
  quality: z
    .union([z.literal('auto'), z.int(qualityError).min(1, qualityError).max(100, qualityError), z.string().regex(/^\d{1,3}$/, qualityError).refine((text) => Number(text) >= 1 && Number(text) <= 100, qualityError)], qualityError)
    .transform((quality) => (quality === 'auto' ? quality : Number(quality)))
    .default('auto')
    .describe("'auto' or 1 to 100 (a number or a string)"),
  format: z
    .enum(FORMAT_NAMES, { error: (issue) => `expected one of ${TRANSFORM_FORMATS.join(', ')}${typeof issue.input === 'string' ? got(issue.input, 20) : ''}` })
    .transform((format): TransformFormat => (format in FORMAT_ALIASES ? FORMAT_ALIASES[format as keyof typeof FORMAT_ALIASES] : (format as TransformFormat)))
    .default(DEFAULT_FORMAT)
    .describe(`${TRANSFORM_FORMATS.join(', ')} (jpeg is jpg); default ${DEFAULT_FORMAT}`),
});

/** transformSchema with the server's largest output side as width's bound. */
export function transformSchemaFor(maxDimension: number) {
  return transformSchema.extend({ width: width.max(maxDimension, `expected at most ${maxDimension} (pixels: the largest output side)`).optional() });
}

// ---- watermarks -----------------------------------------------------------------------------------

export const POSITIONS = ['center', 'top-left', 'top-right', 'bottom-left', 'bottom-right'] as const;
export type WatermarkPosition = (typeof POSITIONS)[number];
export const DEFAULT_POSITION: WatermarkPosition = 'center';
export const DEFAULT_OPACITY = 30;

/** An image URL the service fetches: required, http or https. */
function fetchedUrl(field: 'image' | 'watermark', what: string) {
  const required = `${field} is required: the URL of ${what}`;
  return z
    .string({ error: (issue) => (issue.input === undefined || issue.input === null ? required : 'expected a URL (a string)') })
    .trim()
    .min(1, required)
    .max(2048, 'expected at most 2048 characters')
    .superRefine((text, ctx) => {
      if (!text) return;
      if (!URL.canParse(text)) ctx.addIssue({ code: 'custom', message: 'not a valid URL' });
      else if (!['http:', 'https:'].includes(new URL(text).protocol)) ctx.addIssue({ code: 'custom', message: 'only http and https URLs can be fetched' });
    });
}

const opacityMessage = 'expected an integer from 0 to 100';
export const watermarkSchema = z.object({
  image: fetchedUrl('image', 'the image to watermark').describe('URL of the image (http or https)'),
  watermark: fetchedUrl('watermark', 'the overlay image').describe('URL of the overlay image (http or https)'),
  position: z.enum(POSITIONS, { error: (issue) => `expected one of ${POSITIONS.join(', ')}${got(issue.input, 30)}` }).default(DEFAULT_POSITION).describe(`${POSITIONS.join(', ')}; default ${DEFAULT_POSITION}`),
  opacity: z
    .number({ error: opacityMessage })
    .int(opacityMessage)
    .min(0, opacityMessage)
    .max(100, opacityMessage)
    .default(DEFAULT_OPACITY)
    .describe('0: the image unchanged; 100: the overlay as it is'),
});
