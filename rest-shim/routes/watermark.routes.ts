// Spec "Watermark": GET or POST /api/watermark, parameters in the query (GET) or the body (POST).
// Answer: url, position, opacity (the spec's), then width, height, format, bytes (ours).
import { defineRoute, type RestInput } from '../route.js';
import { optionalInt, optionalString, type Source } from '../input.js';
import { unwrap } from '../result.js';
import { ApplyWatermarkDocument, type ApplyWatermarkMutation } from '../generated/operations.js';

// Absent URLs still reach the service, whose message says what is expected.
const variables = (source: Source) => ({
  image: optionalString(source, 'image') ?? '',
  watermark: optionalString(source, 'watermark') ?? '',
  position: optionalString(source, 'position'),
  opacity: optionalInt(source, 'opacity'),
});

const shape = (data: ApplyWatermarkMutation) => {
  const r = unwrap(data.watermark);
  return { url: r.url, position: r.position, opacity: r.opacity, width: r.width, height: r.height, format: r.format, bytes: r.bytes };
};

const common = { path: '/api/watermark', auth: 'key', scope: 'media', operation: ApplyWatermarkDocument, shape } as const;

export const watermarkRoutes = [
  defineRoute({ ...common, method: 'GET', summary: 'Overlay a watermark image onto an image (query: image, watermark, position, opacity)', variables: ({ query }: RestInput) => variables(query) }),
  defineRoute({ ...common, method: 'POST', summary: 'Overlay a watermark image onto an image (body: image, watermark, position, opacity)', variables: ({ body }: RestInput) => variables(body) }),
];
