// The watermark overlay as callers see it, stated once: the answer (REST names, src/platform/wire.ts)
// and the GraphQL type made from it (the watermark mutation is declared in imaging.operations.ts).
import { z } from 'zod';
import { answerObject } from '../../graphql/answer-object.js';
import { count } from '../../platform/wire.js';
import { WATERMARK_FORMATS, type WatermarkResult } from './watermark.service.js';
import { POSITIONS } from './imaging.input.js';

export const watermarkAnswer = z
  .object({
    url: z.string().describe('signed URL of the result (no key needed)'),
    position: z.enum(POSITIONS),
    opacity: z.int(),
    width: z.int(),
    height: z.int(),
    format: z.enum(WATERMARK_FORMATS),
    bytes: count,
  })
  .meta({ description: "A watermarked copy of an image, stored under the caller's account" });

// GraphQL types position and format as text; the contract test checks the values against the enums.
export const WatermarkResultRef = answerObject<WatermarkResult>('WatermarkResult', watermarkAnswer, {
  fields: () => ({
    url: { resolve: (r, _a, ctx) => ctx.baseUrl + ctx.services.signer.sign(r.path) },
    position: { type: 'String', description: POSITIONS.join(', ') },
    format: { type: 'String', description: `${WATERMARK_FORMATS.slice(0, -1).join(', ')} or ${WATERMARK_FORMATS.at(-1)}` },
  }),
});
