// Which routes answer without a key (spec "Authentication" items 3 and 4): only
// GET /api/community/search, GET /api/wiki/subjects, POST /api/replaceflow/demo and
// POST /api/images/search among the API routes, plus the service's own pages and the capability
// URLs (signed file links, shared gallery tokens) outside /api. The test walks the whole route
// table, so a new route marked key-less by mistake fails here, and every other route is called
// without credentials and must answer 401.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '../../rest-shim/routes.js';
import type { AnyRoute } from '../../rest-shim/route.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

/** The key-less API routes the spec names. */
const SPEC_KEYLESS = ['GET /api/community/search', 'GET /api/wiki/subjects', 'POST /api/replaceflow/demo', 'POST /api/images/search'];

/** Outside /api: the service's own pages and URLs that carry their own capability (a signature or a share token). */
const SERVICE_KEYLESS: Record<string, string> = {
  'GET /healthz': 'health check',
  'GET /readyz': 'readiness probe',
  'GET /openapi.json': 'the API document',
  'GET /docs': 'the API document page',
  'GET /media/:id/:variant': 'signed library file URL (sig in the query)',
  'GET /media/:id/t/:variant': 'signed transform URL',
  'GET /watermarks/:account/:file': 'signed watermark result URL',
  'GET /community/:id/:variant': 'signed community file URL',
  'GET /wiki/:kind/:id': 'signed wiki file URL',
  'GET /gallery/:token': 'shared gallery, read by its share token',
  'POST /gallery/:token': "shared gallery's password form",
};

const name = (route: AnyRoute) => `${route.method} ${route.path}`;

/** The path with every parameter filled with something well formed. */
function samplePath(path: string): string {
  return path.replace(/:([A-Za-z_]+)/g, (_m, param: string) => (param === 'key' ? 'sk_abcdefghi' : param === 'handle' ? 'someone' : '1'));
}

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.stop());

describe('key-less routes', () => {
  it('are exactly the ones the spec names, plus capability URLs outside /api', () => {
    const keyless = routes.filter((r) => r.auth === 'none').map(name);
    expect(keyless.sort()).toEqual([...SPEC_KEYLESS, ...Object.keys(SERVICE_KEYLESS)].sort());
    expect(keyless.filter((r) => r.includes(' /api/')).sort()).toEqual([...SPEC_KEYLESS].sort());
  });

  const guarded = routes.filter((r) => r.auth !== 'none');
  it.each(guarded.map((r) => [name(r), r] as const))('%s answers 401 without credentials', async (_name, route) => {
    const res = await t.request(route.method, samplePath(route.path), route.method === 'GET' || route.method === 'DELETE' ? {} : { body: {} });
    expect(res.status, res.text).toBe(401);
    expect(res.body).toMatchObject({ success: false });
  });

  it('keeps GET /api/community/portfolio/{code} behind a key in GraphQL too', async () => {
    const res = await t.graphql('{ communityPortfolio(handle: "someone") { __typename } }');
    expect(res.body).toMatchObject({ data: null, errors: [{ path: ['communityPortfolio'], extensions: { code: 'UNAUTHENTICATED', status: 401 } }] });
  });
});
