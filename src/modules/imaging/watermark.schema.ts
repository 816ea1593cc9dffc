// GraphQL type of the watermark overlay (the watermark mutation is declared in imaging.operations.ts).
import { builder } from '../../graphql/builder.js';
import { WATERMARK_FORMATS, type WatermarkResult } from './watermark.service.js';
import { POSITIONS } from './imaging.input.js';

export const WatermarkResultRef = builder.objectRef<WatermarkResult>('WatermarkResult').implement({
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
