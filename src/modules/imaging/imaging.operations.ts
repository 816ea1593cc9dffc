// Imaging operations declared once (docs/architecture.md): a transformation URL of a library image
// (spec "Media library", optimize) and the watermark overlay (spec "Watermark", GET or POST), both
// `media` scope. GraphQL fields and REST rows are made from these; the rules live in
// transform.service.ts and watermark.service.ts. Shapes are ours beyond the spec's (README
// "Transformations"). The signed URLs they answer are served by src/http (rest-shim/routes/imaging.routes.ts).
import { defineMutation, defineOperations } from '../../graphql/operation.js';
import { SCOPE } from '../access/index.js';
import { TransformationRef } from './transform.schema.js';
import { WatermarkResultRef } from './watermark.schema.js';
import { AUTO_QUALITY } from './transform.service.js';
import { DEFAULT_WIDTH, transformSchema, watermarkSchema } from './imaging.input.js';

export const imagingOperations = defineOperations({
  optimizeMedia: defineMutation({
    description:
      `A transformation URL of one of the caller's images (spec "Media library", optimize). Defaults: width ${DEFAULT_WIDTH}, quality auto ` +
      `(webp ${AUTO_QUALITY.webp}, jpg ${AUTO_QUALITY.jpg}, avif ${AUTO_QUALITY.avif}, png lossless), format webp.`,
    key: SCOPE.media,
    ids: { id: 'media item' },
    input: transformSchema,
    // A number or its text, and a format name or alias: GraphQL takes both as text.
    args: { quality: 'String', format: 'String' },
    output: TransformationRef,
    run: ({ ctx, actor, id, input }) => ctx.services.transforms.optimize(actor, id, input),
    rest: {
      route: 'POST /api/media/:id/optimize',
      summary: 'A signed URL serving one of your images at a width, quality and format (defaults 1200, auto, webp)',
      errors: { 409: 'the item is in the trash, or not an image' },
    },
  }),
  watermark: defineMutation({
    description: 'Composites an overlay onto an image, both fetched by URL (spec "Watermark")',
    key: SCOPE.media,
    input: watermarkSchema,
    args: { position: 'String' },
    output: WatermarkResultRef,
    run: ({ ctx, actor, input }) => ctx.services.watermarks.create(actor, input),
    rest: [
      { route: 'GET /api/watermark', summary: 'Overlay a watermark image onto an image (query: image, watermark, position, opacity)', operationName: 'ApplyWatermark' },
      { route: 'POST /api/watermark', summary: 'Overlay a watermark image onto an image (body: image, watermark, position, opacity)' },
    ],
  }),
});
