// Spec "Media library": POST /api/media/{id}/optimize builds an image-transformation URL. Our
// answer (the spec leaves it open): url, width, quality, format, media_id, and what the URL serves
// (output_width, output_height, effective_quality). See the README's transformation section.
import { defineRoute } from '../route.js';
import { optionalInt, optionalString, type Source } from '../input.js';
import { unwrap } from '../result.js';
import { InvalidInput } from '../../src/platform/errors.js';
import { OptimizeMediaDocument } from '../generated/operations.js';

/** quality is 'auto' or 1 to 100: a JSON number or a string; the service checks the range. */
function qualityField(body: Source): string | undefined {
  const value = body.quality;
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return value;
  throw new InvalidInput("quality: expected 'auto' or an integer from 1 to 100", 'quality');
}

function mediaId(params: Record<string, string>): number {
  const value = params.id ?? '';
  if (!/^\d{1,9}$/.test(value)) throw new InvalidInput('id: expected an integer id', 'id');
  return Number(value);
}

export const transformRoutes = [
  defineRoute({
    method: 'POST',
    path: '/api/media/:id/optimize',
    auth: 'key',
    scope: 'media',
    summary: 'A signed URL serving one of your images at a width, quality and format (defaults 1200, auto, webp)',
    operation: OptimizeMediaDocument,
    variables: ({ params, body }) => ({
      id: mediaId(params),
      width: optionalInt(body, 'width'),
      quality: qualityField(body),
      format: optionalString(body, 'format'),
    }),
    shape: (data) => {
      const r = unwrap(data.optimizeMedia);
      return {
        url: r.url,
        width: r.width,
        quality: r.quality,
        format: r.format,
        media_id: r.mediaId,
        output_width: r.outputWidth,
        output_height: r.outputHeight,
        effective_quality: r.effectiveQuality,
      };
    },
  }),
];
