// generate: POST /api/generate (same service: the `generate` scope, the style rules, credits held and
// only delivered images charged). The images are not answered as data URIs (megabytes each in a JSON
// answer): each is stored in the caller's media library, tagged `generated`, and answered as its
// signed file link (no key needed to load it) with its media_id. Later steps read the bytes directly.
import { z } from 'zod';
import { SCOPE } from '../../access/index.js';
import { InvalidInput } from '../../../platform/errors.js';
import { GENERATION_PROVIDERS, generateSchema } from '../../generation/index.js';
import { signedMediaPath } from '../../media/index.js';
import type { PipelineDeps } from '../pipeline.deps.js';
import { defineAction } from './action.js';

const DATA_URI = /^data:image\/png;base64,/;

const image = z.object({
  index: z.int().describe('0-based'),
  title: z.string().describe('the variation title'),
  provider: z.enum(GENERATION_PROVIDERS),
  url: z.string().describe("the stored image's signed link in the media library (GET /media/{id}/original, no key needed)"),
  media_id: z.int().describe('the media library item'),
  width: z.int(),
  height: z.int(),
});

export const generateOutputs = z.object({
  prompt: z.string(),
  count: z.int().describe('images delivered (and charged)'),
  provider: z.enum(GENERATION_PROVIDERS),
  credits_charged: z.number().describe('API credits charged, as POST /api/generate charges them'),
  urls: z.array(z.string()).describe('the stored images\' links, in order'),
  images: z.array(image),
});

export function generateAction(deps: PipelineDeps) {
  return defineAction({
    name: 'generate',
    summary: 'Text-to-image (the params of POST /api/generate); the images are stored in your media library and answered as links',
    key: SCOPE.generate,
    params: generateSchema,
    outputs: generateOutputs,
    run: async (ctx, params, raw) => {
      const result = await deps.generation.generate(ctx.actor, raw);
      const images = [];
      for (const made of result.images) {
        if (!DATA_URI.test(made.url)) throw new InvalidInput('generate: the provider answered an image that is not a PNG data URI');
        const bytes = Buffer.from(made.url.replace(DATA_URI, ''), 'base64');
        const { media } = await deps.media.ingest(
          ctx.actor,
          { body: bytes, filename: `generated-${made.index + 1}.png` },
          { name: `${params.prompt.slice(0, 200)} (${made.index + 1})`, tags: ['generated', params.style], group: `pipeline step ${ctx.step}` },
        );
        const url = ctx.baseUrl + signedMediaPath(deps.signer, media, 'original');
        ctx.images.rememberBytes([url], bytes);
        images.push({ index: made.index, title: made.title, provider: made.provider, url, media_id: media.id, width: media.width ?? 0, height: media.height ?? 0 });
      }
      return { prompt: result.prompt, count: result.count, provider: result.provider, credits_charged: result.creditsCharged, urls: images.map((i) => i.url), images };
    },
  });
}
