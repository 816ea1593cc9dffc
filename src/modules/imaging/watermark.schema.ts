// GraphQL surface of the watermark overlay (REST GET or POST /api/watermark).
import { builder } from '../../graphql/builder.js';
import { authScopesOf, SCOPE } from '../access/index.js';
import { WATERMARK_FORMATS, type WatermarkResult } from './watermark.service.js';
import { DEFAULT_OPACITY, DEFAULT_POSITION, POSITIONS } from './imaging.input.js';

const WatermarkResultRef = builder.objectRef<WatermarkResult>('WatermarkResult').implement({
  description: 'A watermarked copy of an image, stored under the caller\'s account',
  fields: (t) => ({
    url: t.string({ description: 'Absolute, signed URL of the result (no key needed to load it)', resolve: (r, _a, ctx) => ctx.baseUrl + ctx.services.signer.sign(r.path) }),
    position: t.string({ description: POSITIONS.join(', '), resolve: (r) => r.position }),
    opacity: t.exposeInt('opacity'),
    width: t.exposeInt('width'),
    height: t.exposeInt('height'),
    format: t.string({ description: `${WATERMARK_FORMATS.slice(0, -1).join(', ')} or ${WATERMARK_FORMATS.at(-1)}`, resolve: (r) => r.format }),
    bytes: t.exposeInt('bytes'),
  }),
});

builder.mutationField('watermark', (t) =>
  t.field({
    type: WatermarkResultRef,
    description: 'Composites an overlay onto an image, both fetched by URL (spec "Watermark")',
    authScopes: authScopesOf(SCOPE.media),
    errors: {},
    args: {
      image: t.arg.string({ required: true, description: 'URL of the image' }),
      watermark: t.arg.string({ required: true, description: 'URL of the overlay' }),
      position: t.arg.string({ description: `${POSITIONS.join(', ')}; default ${DEFAULT_POSITION}` }),
      opacity: t.arg.int({ description: `0 to 100; default ${DEFAULT_OPACITY}` }),
    },
    resolve: (_root, args, ctx) => ctx.services.watermarks.create(ctx.actor!, { image: args.image, watermark: args.watermark, position: args.position ?? undefined, opacity: args.opacity ?? undefined }),
  }),
);
