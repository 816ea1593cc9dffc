// GraphQL type of transformation URLs (optimizeMedia is declared in imaging.operations.ts).
import { builder } from '../../graphql/builder.js';
import type { Context } from '../../graphql/context.js';
import type { Transformation } from './transform.service.js';
import { TRANSFORM_FORMATS } from './imaging.input.js';

/** Absolute signed URL of a transformation (no key needed to load it). */
export function transformationUrl(ctx: Context, t: Pick<Transformation, 'path' | 'params'>): string {
  return ctx.baseUrl + ctx.services.signer.sign(t.path, t.params);
}

export const TransformationRef = builder.objectRef<Transformation>('MediaTransformation').implement({
  description: 'A signed URL of the service\'s transformation endpoint that serves an image at a width, quality and format',
  fields: (t) => ({
    mediaId: t.int({ resolve: (r) => r.mediaId }),
    url: t.string({ description: 'Absolute, signed; changes whenever a parameter does', resolve: (r, _a, ctx) => transformationUrl(ctx, r) }),
    width: t.int({ description: 'The width asked for; the output is never wider than the original', resolve: (r) => r.spec.width }),
    quality: t.string({ description: "'auto' or 1 to 100, as asked", resolve: (r) => String(r.spec.quality) }),
    format: t.string({ description: TRANSFORM_FORMATS.join(', '), resolve: (r) => r.spec.format }),
    outputWidth: t.int({ nullable: true, resolve: (r) => r.output.width }),
    outputHeight: t.int({ nullable: true, resolve: (r) => r.output.height }),
    effectiveQuality: t.int({ nullable: true, description: 'The encoder quality used; null for lossless png', resolve: (r) => r.output.quality }),
  }),
});
