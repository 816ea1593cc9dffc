// GraphQL surface of transformation URLs: optimizeMedia (REST POST /api/media/{id}/optimize).
import { builder } from '../../graphql/builder.js';
import { authScopesOf, SCOPE } from '../access/index.js';
import type { Context } from '../../graphql/context.js';
import { AUTO_QUALITY, type Transformation } from './transform.service.js';
import { DEFAULT_WIDTH, TRANSFORM_FORMATS } from './imaging.input.js';

/** Absolute signed URL of a transformation (no key needed to load it). */
export function transformationUrl(ctx: Context, t: Pick<Transformation, 'path' | 'params'>): string {
  return ctx.baseUrl + ctx.services.signer.sign(t.path, t.params);
}

const TransformationRef = builder.objectRef<Transformation>('MediaTransformation').implement({
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

builder.mutationField('optimizeMedia', (t) =>
  t.field({
    type: TransformationRef,
    description:
      `A transformation URL of one of the caller's images (spec "Media library", optimize). Defaults: width ${DEFAULT_WIDTH}, quality auto ` +
      `(webp ${AUTO_QUALITY.webp}, jpg ${AUTO_QUALITY.jpg}, avif ${AUTO_QUALITY.avif}, png lossless), format webp.`,
    authScopes: authScopesOf(SCOPE.media),
    errors: {},
    args: {
      id: t.arg.int({ required: true }),
      width: t.arg.int({ description: 'Pixels, 1 to TRANSFORM_MAX_DIMENSION (4096); never upscales' }),
      quality: t.arg.string({ description: "'auto' or an integer from 1 to 100" }),
      format: t.arg.string({ description: TRANSFORM_FORMATS.join(', ') }),
    },
    resolve: (_root, args, ctx) => ctx.services.transforms.optimize(ctx.actor!, args.id, { width: args.width ?? undefined, quality: args.quality ?? undefined, format: args.format ?? undefined }),
  }),
);
