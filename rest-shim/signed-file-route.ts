// A file served by its signed URL, as the library, the community and the wiki serve theirs (routers
// under src/http): no key, the signature is the permission; the link's version and signature ride in
// the query.
import { z } from 'zod';
import { defineMountedRoute, type RawResponse } from './route.js';

const imageFile: RawResponse[] = [{ status: 200, description: 'The file', contentTypes: ['image/*'], headers: { ETag: 'strong entity tag' } }];

export interface SignedFileRoute {
  path: string;
  /** What the file is; the summary goes on to say that no key is needed. */
  summary: string;
  params: z.ZodObject;
  /** What the link's `v` is, when it says more than `version`. */
  version?: string;
  /** Query parameters of the link after `v` and `sig`. */
  query?: z.ZodRawShape;
  /** An image with its ETag unless stated. */
  produces?: RawResponse[];
  /** When the 403 happens, when more than a missing, wrong or outdated signature. */
  forbidden?: string;
}

export const signedFileRoute = (route: SignedFileRoute) =>
  defineMountedRoute({
    method: 'GET',
    path: route.path,
    auth: 'none',
    summary: `${route.summary}: no key, the signature is the permission`,
    request: { params: route.params, query: z.object({ v: z.string().describe(route.version ?? 'version'), sig: z.string().describe('signature'), ...route.query }) },
    produces: route.produces ?? imageFile,
    errors: { 403: route.forbidden ?? 'a missing or wrong signature, or a link to an earlier file', 404: 'no such file' },
  });
