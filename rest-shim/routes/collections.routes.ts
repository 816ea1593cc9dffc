// Spec "Media library": collections, and "Share link (collection)". Shapes are ours where the spec
// leaves them open (docs/rest-api.md "Media: collections and the gallery"). Every JSON row is declared in
// src/modules/collections/collections.operations.ts; written here: the gallery pages (mounted HTML,
// no key).
import { z } from 'zod';
import { defineMountedRoute } from '../route.js';
import { restRoutesOf } from '../derive.js';
import { collectionOperations } from '../../src/modules/collections/collections.operations.js';

const galleryParams = z.object({ token: z.string().describe('share_token of a shared collection') });
const htmlPage = (status: number, description: string) => ({ status, description, contentTypes: ['text/html'] });

export const collectionsRoutes = [
  ...restRoutesOf(collectionOperations),
  defineMountedRoute({
    method: 'GET',
    path: '/gallery/:token',
    secretParams: ['token'],
    auth: 'none',
    summary: 'The public HTML page of a shared collection (no key): thumbnails linking to the files, 100 per page',
    request: { params: galleryParams, query: z.object({ page: z.int().min(1).default(1) }) },
    produces: [
      htmlPage(200, 'The gallery page, or its password form when the collection is password-protected and the access cookie is missing'),
      htmlPage(404, 'Unknown, revoked or malformed token'),
    ],
  }),
  defineMountedRoute({
    method: 'POST',
    path: '/gallery/:token',
    secretParams: ['token'],
    auth: 'none',
    summary: "The gallery's password form: the right password sets an access cookie for this gallery (12 hours) and redirects to the page",
    request: { params: galleryParams, form: z.object({ password: z.string() }) },
    produces: [
      { status: 303, description: 'Right password (or none needed): back to the page', headers: { Location: '/gallery/<token>', 'Set-Cookie': 'gallery_access (HttpOnly, SameSite=Lax, Path=/gallery/<token>)' } },
      htmlPage(400, 'The form could not be read'),
      htmlPage(401, 'Wrong password: the form again'),
      htmlPage(404, 'Unknown, revoked or malformed token'),
      { ...htmlPage(429, 'Too many wrong passwords from one address'), headers: { 'Retry-After': 'seconds to wait' } },
    ],
  }),
];
