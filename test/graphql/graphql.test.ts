// GraphQL endpoint: GraphiQL, hardening (depth, aliases, cost, batching, suggestions) and ownership
// of relay node lookups.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { GRAPHIQL_WELCOME } from '../../src/graphql/server.js';

let dev: TestApp;
let prod: TestApp;
beforeAll(async () => {
  [dev, prod] = await Promise.all([
    startTestApp({ graphql: { maxDepth: 5, maxAliases: 3, maxCost: 60, corsOrigins: '*' } }),
    startTestApp({ env: 'production' }),
  ]);
});
afterAll(async () => {
  await Promise.all([dev.stop(), prod.stop()]);
});

describe('GraphiQL', () => {
  it('is served outside production', async () => {
    const res = await dev.request('GET', '/graphql', { headers: { Accept: 'text/html' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(res.text).toContain('graphiql');
    // Bundled into the page: nothing is loaded from a CDN.
    expect(res.text).not.toMatch(/<(script|link)[^>]+(src|href)=["']?https?:/i);
    expect(res.text).not.toContain('unpkg.com');
  });

  it('opens with a query that runs once the key is in the Headers pane, which says where it goes', async () => {
    const page = (await dev.request('GET', '/graphql', { headers: { Accept: 'text/html' } })).text;
    expect(page).toContain(JSON.stringify(GRAPHIQL_WELCOME).slice(1, 60));
    expect(page).toContain('X-API-Key');
    expect(page).toContain('"defaultEditorToolsVisibility":"headers"');
    // Run where the limits are the defaults (dev's are lowered for the hardening tests below).
    const keyless = await prod.graphql(GRAPHIQL_WELCOME, {});
    expect(keyless.body.errors[0].message).toMatch(/API key/);
    const run = await prod.graphql(GRAPHIQL_WELCOME, {}, { key: prod.ownerKey });
    expect(run.body.errors).toBeUndefined();
    expect(run.body.data.viewer).toMatchObject({ handle: 'owner', tier: 'operator', jobs: { totalCount: 0 } });
  });

  it('is not served in production', async () => {
    const res = await prod.request('GET', '/graphql', { headers: { Accept: 'text/html' } });
    expect(res.text).not.toContain('graphiql');
  });
});

describe('hardening', () => {
  it('answers queries within the limits', async () => {
    const res = await dev.graphql('{ viewer { handle subKeys(first: 2) { totalCount } } }', {}, { key: dev.ownerKey });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.viewer.handle).toBe('owner');
  });

  it('refuses a query deeper than the limit', async () => {
    const res = await dev.graphql('{ viewer { subKeys { edges { node { usage { requestsUsed } } } } } }', {}, { key: dev.ownerKey });
    expect(res.body.data).toBeUndefined();
    expect(res.body.errors[0].message).toMatch(/depth/i);
  });

  it('refuses too many aliases', async () => {
    const res = await dev.graphql('{ a: health b: health c: health d: health e: health }', {}, { key: dev.ownerKey });
    expect(res.body.data).toBeUndefined();
    expect(res.body.errors[0].message).toMatch(/aliases limit of 3 exceeded/i);
  });

  it('refuses a query over the cost limit', async () => {
    const fields = Array.from({ length: 40 }, () => 'handle email tier status').join(' ');
    const res = await dev.graphql(`{ viewer { ${fields} subKeys { edges { node { prefix label scopes status createdAt } } } } }`, {}, { key: dev.ownerKey });
    expect(res.body.data).toBeUndefined();
    expect(res.body.errors[0].message).toMatch(/cost/i);
  });

  it('does not accept batched requests', async () => {
    const res = await dev.request('POST', '/graphql', { key: dev.ownerKey, body: [{ query: '{ health }' }, { query: '{ health }' }] });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.text).not.toContain('"health":true');
  });

  it('suggests field names outside production only', async () => {
    const devRes = await dev.graphql('{ viewr { handle } }', {}, { key: dev.ownerKey });
    expect(devRes.body.errors[0].message).toMatch(/Did you mean "viewer"/);
    const prodRes = await prod.graphql('{ viewr { handle } }', {}, { key: prod.ownerKey });
    expect(prodRes.body.errors[0].message).toMatch(/Cannot query field "viewr"/);
    expect(prodRes.body.errors[0].message).not.toMatch(/Did you mean/);
  });
});

describe('production secrecy', () => {
  it('refuses introspection in production only', async () => {
    const query = '{ __schema { types { name } } }';
    expect((await dev.graphql(query, {}, { key: dev.ownerKey })).body.data.__schema.types.length).toBeGreaterThan(10);
    const prodRes = await prod.graphql(query, {}, { key: prod.ownerKey });
    expect(prodRes.body.data).toBeUndefined();
    expect(prodRes.body.errors[0].message).toMatch(/introspection/i);
  });

  it('names no enum value in production, neither for a literal nor for a variable', async () => {
    const literal = '{ viewer { jobs(state: complted) { totalCount } } }';
    expect((await dev.graphql(literal, {}, { key: dev.ownerKey })).body.errors[0].message).toMatch(/Did you mean the enum value "completed"/);
    const prodLiteral = await prod.graphql(literal, {}, { key: prod.ownerKey });
    expect(prodLiteral.body.errors[0].message).toMatch(/complted/);
    expect(prodLiteral.text).not.toMatch(/Did you mean|"completed"/);
    const variable = await prod.graphql('query($s: JobState) { viewer { jobs(state: $s) { totalCount } } }', { s: 'complted' }, { key: prod.ownerKey });
    expect(variable.body.errors[0].message).toMatch(/complted/);
    expect(variable.text).not.toMatch(/Did you mean|"completed"/);
  });
});

describe('CORS on /graphql', () => {
  it('allows any origin without credentials by default (keys travel in a header, never in cookies)', async () => {
    const res = await fetch(`${dev.url}/graphql`, {
      method: 'OPTIONS',
      headers: { Origin: 'https://elsewhere.example', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type,x-api-key' },
    });
    // '*' or the origin echoed back (with Vary: Origin): either way, never with credentials.
    expect(['*', 'https://elsewhere.example']).toContain(res.headers.get('access-control-allow-origin'));
    expect(res.headers.get('access-control-allow-credentials')).not.toBe('true');
    expect(res.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('x-api-key');
  });

  it('answers only the listed origins when CORS_ORIGINS names some', async () => {
    const listed = await startTestApp({ graphql: { maxDepth: 10, maxAliases: 15, maxCost: 5000, corsOrigins: ['https://app.example.org'] } });
    try {
      const ask = (origin: string) => fetch(`${listed.url}/graphql`, { method: 'OPTIONS', headers: { Origin: origin, 'Access-Control-Request-Method': 'POST' } });
      expect((await ask('https://app.example.org')).headers.get('access-control-allow-origin')).toBe('https://app.example.org');
      const other = await ask('https://evil.example');
      expect(other.headers.get('access-control-allow-origin')).not.toBe('https://evil.example');
      expect(other.headers.get('access-control-allow-credentials')).not.toBe('true');
    } finally {
      await listed.stop();
    }
  });
});

describe('CORS on the REST routes', () => {
  it('answers a preflight with the same policy as /graphql and lets a script read the quota headers', async () => {
    const preflight = await fetch(`${dev.url}/api/media/list`, {
      method: 'OPTIONS',
      headers: { Origin: 'https://elsewhere.example', 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'x-api-key' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-credentials')).toBeNull();
    expect(preflight.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('x-api-key');
    const call = await fetch(`${dev.url}/api/media/list`, { headers: { Origin: 'https://elsewhere.example', 'X-API-Key': dev.ownerKey } });
    expect(call.headers.get('access-control-expose-headers')).toContain('RateLimit-Remaining');
  });

  it('names no other origin when CORS_ORIGINS lists some', async () => {
    const listed = await startTestApp({ graphql: { maxDepth: 10, maxAliases: 15, maxCost: 5000, corsOrigins: ['https://app.example.org'] } });
    try {
      const ask = (origin: string) => fetch(`${listed.url}/api/media/list`, { method: 'OPTIONS', headers: { Origin: origin, 'Access-Control-Request-Method': 'GET' } });
      expect((await ask('https://app.example.org')).headers.get('access-control-allow-origin')).toBe('https://app.example.org');
      expect((await ask('https://evil.example')).headers.get('access-control-allow-origin')).toBeNull();
    } finally {
      await listed.stop();
    }
  });
});

describe('authentication over GraphQL', () => {
  it('answers 401 for an invalid key and lets public fields through without one', async () => {
    const bad = await dev.graphql('{ health }', {}, { key: 'mk_wrong' });
    expect(bad.status).toBe(401);
    expect(bad.body.errors[0]).toMatchObject({ message: 'invalid API key', extensions: { code: 'UNAUTHENTICATED' } });
    const anonymous = await dev.graphql('{ health }');
    expect(anonymous.body).toEqual({ data: { health: true } });
  });

  it('refuses protected fields without a key', async () => {
    const res = await dev.graphql('{ viewer { handle } }');
    expect(res.body.errors[0]).toMatchObject({ message: expect.stringMatching(/API key required/), extensions: { code: 'UNAUTHENTICATED', status: 401 } });
  });

  it('returns ServiceError results for refused mutations', async () => {
    const res = await dev.graphql(
      'mutation { createSubKey(input: { scopes: "everything" }) { __typename ... on ServiceError { message status code field } } }',
      {},
      { key: dev.ownerKey },
    );
    expect(res.body.data.createSubKey).toEqual({
      __typename: 'ServiceError',
      message: 'scopes: unknown scope everything; expected a comma-separated subset of scrape, generate, search, media',
      status: 400,
      code: 'INVALID_INPUT',
      field: 'scopes',
    });
  });
});

describe('relay node lookups', () => {
  it("finds the caller's own objects and nothing of another account's", async () => {
    const other = await dev.createAccount('node-other');
    const mine = await dev.graphql(
      'mutation { createSubKey(input: { label: "n" }) { ... on MutationCreateSubKeySuccess { data { subKey { id } } } } }',
      {},
      { key: dev.ownerKey },
    );
    const id = mine.body.data.createSubKey.data.subKey.id as string;
    const query = 'query ($id: ID!) { node(id: $id) { id ... on SubKey { label } } }';
    const own = await dev.graphql(query, { id }, { key: dev.ownerKey });
    expect(own.body.data.node).toEqual({ id, label: 'n' });
    const theirs = await dev.graphql(query, { id }, { key: other.key });
    expect(theirs.body.data.node).toBeNull();
    const viewer = await dev.graphql('{ viewer { id } }', {}, { key: other.key });
    const ownerViewer = await dev.graphql('{ viewer { id } }', {}, { key: dev.ownerKey });
    const crossAccount = await dev.graphql('query ($id: ID!) { node(id: $id) { id } }', { id: ownerViewer.body.data.viewer.id }, { key: other.key });
    expect(crossAccount.body.data.node).toBeNull();
    expect(viewer.body.data.viewer.id).not.toBe(ownerViewer.body.data.viewer.id);
  });
});

describe('answers shaped by the selection', () => {
  it('answers a mutation asked for nothing but __typename (Pothos gave Prisma an empty select: a 500)', async () => {
    const created = await dev.graphql('mutation { createFolder(name: "typename only") { __typename } }', {}, { key: dev.ownerKey });
    expect(created.body).toEqual({ data: { createFolder: { __typename: 'MutationCreateFolderSuccess' } } });
    const renamed = await dev.graphql('mutation ($id: Int!) { renameFolder(id: $id, name: "still typename only") { __typename } }', { id: (await dev.request('GET', '/api/media/folders', { key: dev.ownerKey })).body.folders[0].id }, { key: dev.ownerKey });
    expect(renamed.body).toEqual({ data: { renameFolder: { __typename: 'MutationRenameFolderSuccess' } } });
  });

  it('answers a File variable of the wrong shape as a request error, not a 500', async () => {
    const res = await dev.graphql('mutation ($file: File!) { uploadMedia(file: $file) { __typename } }', { file: 'not a file' }, { key: dev.ownerKey });
    expect(res.status).toBe(200); // GraphQL over HTTP answers a request error in JSON with 200 (was 500)
    expect(res.body.errors[0].message).toMatch(/File: expected an uploaded file/);
  });
});
