// Spec "Watermark": GET or POST /api/watermark, parameters in the query (GET) or the body (POST).
// Answer: url, position, opacity (the spec's), then width, height, format, bytes (ours).
import { z } from 'zod';
import { defineMountedRoute, defineRoute, type RestInput } from '../route.js';
import { optionalInt, optionalString, type Source } from '../input.js';
import { unwrap } from '../result.js';
import { ApplyWatermarkDocument, type ApplyWatermarkMutation } from '../generated/operations.js';
import { DEFAULT_OPACITY, DEFAULT_POSITION, POSITIONS } from '../../src/modules/watermark/watermark.service.js';
import { count } from '../schemas.js';

const input = z.object({
  image: z.string().max(2048).describe('URL of the image (http or https)'),
  watermark: z.string().max(2048).describe('URL of the overlay image (http or https)'),
  position: z.enum(POSITIONS).default(DEFAULT_POSITION),
  opacity: z.int().min(0).max(100).default(DEFAULT_OPACITY).describe("0: the image unchanged; 100: the overlay as it is"),
});

const response = z.object({
  url: z.string().describe('signed URL of the result (no key needed)'),
  position: z.enum(POSITIONS),
  opacity: z.int(),
  width: z.int(),
  height: z.int(),
  format: z.enum(['jpeg', 'png', 'webp']),
  bytes: count,
});

// Absent URLs still reach the service, whose message says what is expected.
const variables = (source: Source) => ({
  image: optionalString(source, 'image') ?? '',
  watermark: optionalString(source, 'watermark') ?? '',
  position: optionalString(source, 'position'),
  opacity: optionalInt(source, 'opacity'),
});

const shape = (data: ApplyWatermarkMutation) => {
  const r = unwrap(data.watermark);
  // GraphQL types these two as strings; the contract test checks the values against the enums.
  const { position, format } = r as { position: (typeof POSITIONS)[number]; format: 'jpeg' | 'png' | 'webp' };
  return { url: r.url, position, opacity: r.opacity, width: r.width, height: r.height, format, bytes: r.bytes };
};

const common = { path: '/api/watermark', auth: 'key', scope: 'media', operation: ApplyWatermarkDocument, shape, response } as const;

export const watermarkRoutes = [
  defineRoute({ ...common, method: 'GET', summary: 'Overlay a watermark image onto an image (query: image, watermark, position, opacity)', request: { query: input }, variables: ({ query }: RestInput) => variables(query) }),
  defineRoute({ ...common, method: 'POST', summary: 'Overlay a watermark image onto an image (body: image, watermark, position, opacity)', request: { body: input }, variables: ({ body }: RestInput) => variables(body) }),
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
