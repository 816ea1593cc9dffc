// The imaging module's routes (src/modules/imaging/): transformation URLs and watermarks.
//
// Spec "Media library": POST /api/media/{id}/optimize builds an image-transformation URL. Our
// answer (the spec leaves it open): url, width, quality, format, media_id, and what the URL serves
// (output_width, output_height, effective_quality). See the README's transformation section.
//
// Spec "Watermark": GET or POST /api/watermark, parameters in the query (GET) or the body (POST).
// Answer: url, position, opacity (the spec's), then width, height, format, bytes (ours).
import { z } from 'zod';
import { defineMountedRoute, defineRoute } from '../route.js';
import { SCOPE } from '../../src/modules/access/index.js';
import { pathId } from '../input.js';
import { unwrap } from '../result.js';
import { ApplyWatermarkDocument, type ApplyWatermarkMutation, OptimizeMediaDocument } from '../generated/operations.js';
import { count, id, idParams } from '../schemas.js';
import { POSITIONS, transformSchema, watermarkSchema, type WatermarkPosition } from '../../src/modules/imaging/imaging.input.js';
import { WATERMARK_FORMATS, type WatermarkFormat } from '../../src/modules/imaging/watermark.service.js';

const immutableImage = [
  { status: 200, description: 'The image; immutable (the URL changes whenever the bytes would)', contentTypes: ['image/*'], headers: { ETag: 'strong entity tag', 'Cache-Control': 'public, max-age=31536000, immutable' } },
  { status: 304, description: 'Unchanged (If-None-Match matched the ETag)' },
];

const transformRoutes = [
  defineRoute({
    method: 'POST',
    path: '/api/media/:id/optimize',
    auth: 'key',
    key: SCOPE.media,
    summary: 'A signed URL serving one of your images at a width, quality and format (defaults 1200, auto, webp)',
    operation: OptimizeMediaDocument,
    request: { params: idParams('media item'), body: transformSchema },
    response: z.object({
      url: z.string().describe('signed URL of the transformed image (no key needed)'),
      width: z.int(),
      quality: z.string().describe("'auto' or 1 to 100"),
      format: z.string(),
      media_id: id,
      output_width: z.int().nullable().describe('width of what the URL serves'),
      output_height: z.int().nullable(),
      effective_quality: z.int().nullable().describe('the encoder quality auto chose'),
    }),
    errors: { 409: 'the item is in the trash, or not an image' },
    // GraphQL's quality is a String: a JSON number goes as its digits.
    variables: ({ params, body }) => ({ id: pathId(params, 'media item'), width: body.width, quality: body.quality?.toString(), format: body.format }),
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
  defineMountedRoute({
    method: 'GET',
    path: '/media/:id/t/:variant',
    auth: 'none',
    summary: 'An image at a width, quality and format, by the signed URL /api/media/{id}/optimize answered (no key)',
    request: {
      params: idParams('media item').extend({ variant: z.string().describe('<width>x<quality>.<format>') }),
      query: z.object({ v: z.string().describe('version: changes with the bytes'), sig: z.string().describe('signature') }),
    },
    produces: immutableImage,
    errors: { 403: 'a missing or wrong signature', 404: 'no such image', 409: 'the item is in the trash, or not an image' },
  }),
];

const watermarkResponse = z.object({
  url: z.string().describe('signed URL of the result (no key needed)'),
  position: z.enum(POSITIONS),
  opacity: z.int(),
  width: z.int(),
  height: z.int(),
  format: z.enum(WATERMARK_FORMATS),
  bytes: count,
});

const watermarkVariables = ({ image, watermark, position, opacity }: z.input<typeof watermarkSchema>) => ({ image, watermark, position, opacity });

const watermarkShape = (data: ApplyWatermarkMutation) => {
  const r = unwrap(data.watermark);
  // GraphQL types these two as strings; the contract test checks the values against the enums.
  const { position, format } = r as { position: WatermarkPosition; format: WatermarkFormat };
  return { url: r.url, position, opacity: r.opacity, width: r.width, height: r.height, format, bytes: r.bytes };
};

const watermarkRoute = { path: '/api/watermark', auth: 'key', key: SCOPE.media, operation: ApplyWatermarkDocument, shape: watermarkShape, response: watermarkResponse } as const;

const watermarkRoutes = [
  defineRoute({ ...watermarkRoute, method: 'GET', summary: 'Overlay a watermark image onto an image (query: image, watermark, position, opacity)', request: { query: watermarkSchema }, variables: ({ query }) => watermarkVariables(query) }),
  defineRoute({ ...watermarkRoute, method: 'POST', summary: 'Overlay a watermark image onto an image (body: image, watermark, position, opacity)', request: { body: watermarkSchema }, variables: ({ body }) => watermarkVariables(body) }),
  defineMountedRoute({
    method: 'GET',
    path: '/watermarks/:account/:file',
    auth: 'none',
    summary: 'A watermarked image by the signed URL /api/watermark answered (no key)',
    request: {
      params: z.object({ account: z.string().describe('account id'), file: z.string().describe('<sha256>.<ext>') }),
      query: z.object({ sig: z.string().describe('signature') }),
    },
    produces: [
      { status: 200, description: 'The image; immutable', contentTypes: ['image/jpeg', 'image/png', 'image/webp'], headers: { ETag: 'strong entity tag', 'Cache-Control': 'public, max-age=31536000, immutable' } },
      { status: 304, description: 'Unchanged (If-None-Match matched the ETag)' },
    ],
    errors: { 403: 'a missing or wrong signature', 404: 'no such image' },
  }),
];

export const imagingRoutes = [...transformRoutes, ...watermarkRoutes];
