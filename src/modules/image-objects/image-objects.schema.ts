// GraphQL surface of image objects: one object by id, and the objects nearest to a blockhash (the
// query reverse search and mirrors build on). Any key reads them: an object holds hashes and sizes,
// never pixels or who uploaded them. Thin: the rules live in image-objects.service.ts.
import { builder } from '../../graphql/builder.js';
import { ANY_KEY, authScopesOf } from '../access/index.js';
import { InvalidInput } from '../../platform/errors.js';
import { SAME_OBJECT_MAX_DISTANCE, type Neighbour } from './image-objects.service.js';
import type { ImageObject } from '../../generated/prisma/client.js';

/** Most neighbours one query answers. */
const MAX_NEIGHBOURS = 100;

export const ImageObjectRef = builder.objectRef<ImageObject>('ImageObject').implement({
  description: 'The one identity of an image: resized, recompressed and lightly cropped copies are the same object',
  fields: (t) => ({
    databaseId: t.exposeInt('id'),
    sha256: t.exposeString('sha256', { description: 'SHA-256 of the bytes that made the object' }),
    phash: t.exposeString('phash', { description: '64-bit DCT perceptual hash, 16 hex characters' }),
    blockhash: t.exposeString('blockhash', { description: '256-bit blockhash, 64 hex characters' }),
    bytes: t.exposeInt('bytes'),
    format: t.exposeString('format'),
    width: t.exposeInt('width'),
    height: t.exposeInt('height'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const NeighbourRef = builder.objectRef<Neighbour>('ImageObjectNeighbour').implement({
  fields: (t) => ({
    object: t.field({ type: ImageObjectRef, resolve: (n) => n.object }),
    distance: t.exposeInt('distance', { description: 'Blockhash Hamming distance in bits' }),
  }),
});

builder.queryFields((t) => ({
  imageObject: t.field({
    type: ImageObjectRef,
    nullable: true,
    authScopes: authScopesOf(ANY_KEY),
    args: { id: t.arg.int({ required: true }) },
    resolve: (_r, a, ctx) => ctx.services.imageObjects.byId(a.id),
  }),
  nearestImageObjects: t.field({
    type: [NeighbourRef],
    authScopes: authScopesOf(ANY_KEY),
    errors: {},
    description: `Objects nearest to a blockhash, nearest first (maxDistance default ${SAME_OBJECT_MAX_DISTANCE}, at most 47; limit default 10, at most ${MAX_NEIGHBOURS})`,
    args: { blockhash: t.arg.string({ required: true }), limit: t.arg.int(), maxDistance: t.arg.int() },
    resolve: (_r, a, ctx) => {
      const limit = a.limit ?? 10;
      if (limit > MAX_NEIGHBOURS) throw new InvalidInput(`limit: expected at most ${MAX_NEIGHBOURS}`, 'limit');
      return ctx.services.imageObjects.nearest(a.blockhash, limit, a.maxDistance ?? SAME_OBJECT_MAX_DISTANCE);
    },
  }),
}));
