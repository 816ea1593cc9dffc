// The imaging module's routes (src/modules/imaging/): transformation URLs and watermarks.
//
// Spec "Media library": POST /api/media/{id}/optimize builds an image-transformation URL. Our
// answer (the spec leaves it open): url, width, quality, format, media_id, and what the URL serves
// (output_width, output_height, effective_quality). See docs/rest-api.md "Transformation URLs and watermarks".
//
// Spec "Watermark": GET or POST /api/watermark, parameters in the query (GET) or the body (POST).
// Answer: url, position, opacity (the spec's), then width, height, format, bytes (ours).
//
// Both are declared in src/modules/imaging/imaging.operations.ts; written here: the signed URLs
// they answer, served by src/http (mounted).
import { z } from 'zod';
import { defineMountedRoute } from '../route.js';
import { restRoutesOf } from '../derive.js';
import { idParams } from '../schemas.js';
import { imagingOperations } from '../../src/modules/imaging/imaging.operations.js';

const immutableImage = [
  { status: 200, description: 'The image; immutable (the URL changes whenever the bytes would)', contentTypes: ['image/*'], headers: { ETag: 'strong entity tag', 'Cache-Control': 'public, max-age=31536000, immutable' } },
  { status: 304, description: 'Unchanged (If-None-Match matched the ETag)' },
];

const [optimizeRoute, ...watermarkRoutes] = restRoutesOf(imagingOperations);

export const imagingRoutes = [
  optimizeRoute!,
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
  ...watermarkRoutes,
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

