// Transformation URLs as callers see them, stated once: the answer (REST names, src/platform/wire.ts)
// and the GraphQL type made from it (optimizeMedia is declared in imaging.operations.ts).
import { z } from 'zod';
import { answerObject } from '../../graphql/answer-object.js';
import type { Context } from '../../graphql/context.js';
import { id } from '../../platform/wire.js';
import type { Transformation } from './transform.service.js';
import { TRANSFORM_FORMATS } from './imaging.input.js';

/** Absolute signed URL of a transformation (no key needed to load it). */
export function transformationUrl(ctx: Context, t: Pick<Transformation, 'path' | 'params'>): string {
  return ctx.baseUrl + ctx.services.signer.sign(t.path, t.params);
}

export const transformation = z
  .object({
    url: z.string().describe('signed URL of the transformed image (no key needed)'),
    width: z.int(),
    quality: z.string().describe("'auto' or 1 to 100"),
    format: z.string(),
    media_id: id,
    output_width: z.int().nullable().describe('width of what the URL serves'),
    output_height: z.int().nullable(),
    effective_quality: z.int().nullable().describe('the encoder quality auto chose'),
  })
  .meta({ description: "A signed URL of the service's transformation endpoint that serves an image at a width, quality and format" });

export const TransformationRef = answerObject<Transformation>('MediaTransformation', transformation, {
  fields: () => ({
    url: { description: 'Absolute, signed; changes whenever a parameter does', resolve: (r, _a, ctx) => transformationUrl(ctx, r) },
    width: { description: 'The width asked for; the output is never wider than the original', resolve: (r) => r.spec.width },
    quality: { resolve: (r) => String(r.spec.quality) },
    format: { description: TRANSFORM_FORMATS.join(', '), resolve: (r) => r.spec.format },
    output_width: { resolve: (r) => r.output.width },
    output_height: { resolve: (r) => r.output.height },
    effective_quality: { description: 'The encoder quality used; null for lossless png', resolve: (r) => r.output.quality },
  }),
});
