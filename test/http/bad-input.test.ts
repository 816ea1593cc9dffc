// Bad input is a 400, never a 500 (issue 20, "500s on bad input" and "smaller"): input nested
// deeper than MAX_NESTING_DEPTH is refused before it is parsed or walked, on every JSON route, on
// GraphQL (document, variables by POST, GET and multipart, and graphql-ws), and in multipart fields
// that carry JSON; non-finite numbers in form fields are the module's 400 naming the field; a failed
// pipeline says why in `error`; SVG filters and SVGs declaring more than UPLOAD_MAX_PIXELS are
// refused before rendering; generation judges its whole input before asking for a provider.
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '../../rest-shim/routes.js';
import { MAX_NESTING_DEPTH } from '../../src/platform/validation.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { form, photo } from '../helpers/images.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.stop());

const LEVELS = 100_000;
/** About 200 KB of text nested 100,000 levels deep (built as text: JSON.stringify would itself overflow). */
const deep = (levels = LEVELS) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
const DEPTH_MESSAGE = `nested deeper than ${MAX_NESTING_DEPTH} levels`;

const png = (colour: string) => photo(colour, { format: 'png', width: 64, height: 64 });

describe('nesting depth', () => {
  it('every route that takes a body (the key-less ReplaceFlow demo too) refuses a body nested 100,000 levels with 400 saying the limit', async () => {
    const bodied = routes.filter((route) => route.method !== 'GET' && route.method !== 'DELETE');
    expect(bodied.map((r) => r.path)).toContain('/api/replaceflow/demo');
    for (const route of [...bodied, { method: 'POST', path: '/graphql' }]) {
      const path = route.path.replace(/:[a-z_]+/g, '1');
      const res = await t.request(route.method, path, { key: t.ownerKey, rawBody: `{"a":${deep()}}` });
      expect(res.status, `${route.method} ${path}: ${res.text}`).toBe(400);
      expect(res.body, `${route.method} ${path}`).toEqual({ success: false, error: `request body: ${DEPTH_MESSAGE}` });
    }
  });

  it('takes nesting up to the limit: the limit is the depth, not a size', async () => {
    const at = `${'['.repeat(MAX_NESTING_DEPTH - 1)}"x"${']'.repeat(MAX_NESTING_DEPTH - 1)}`;
    const res = await t.request('POST', '/api/media/folders', { key: t.ownerKey, rawBody: `{"name":${at}}` });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/^name[: ]/);
    const over = await t.request('POST', '/api/media/folders', { key: t.ownerKey, rawBody: `{"name":[${at}]}` });
    expect(over.body.error).toBe(`request body: ${DEPTH_MESSAGE}`);
  });

  it('GraphQL: a deep document, and deep variables by GET and multipart, are 400s saying the limit', async () => {
    const document = await t.request('POST', '/graphql', { key: t.ownerKey, body: { query: `{ health(x: ${deep()}) }` } });
    expect(document.status, document.text).toBe(400);
    expect(document.body.errors[0]).toMatchObject({ message: `query: ${DEPTH_MESSAGE}`, extensions: { code: 'INVALID_INPUT', status: 400 } });
    const selections = await t.request('POST', '/graphql', { key: t.ownerKey, body: { query: `{ ${'a { '.repeat(5000)}${'} '.repeat(5000)}}` } });
    expect(selections.body.errors[0].message).toBe(`query: ${DEPTH_MESSAGE}`);
    // Brackets inside strings and comments are not nesting.
    const quoted = await t.request('POST', '/graphql', { key: t.ownerKey, body: { query: `# ${'{'.repeat(100)}\n{ health }` } });
    expect(quoted.body, quoted.text).toEqual({ data: { health: expect.anything() } });

    const variables = encodeURIComponent(`{"x":${deep(1000)}}`);
    const get = await t.request('GET', `/graphql?query=${encodeURIComponent('query($x: JSON) { health }')}&variables=${variables}`, { key: t.ownerKey });
    expect(get.status, get.text).toBe(400);
    expect(get.body.errors[0].message).toBe(`variables: ${DEPTH_MESSAGE}`);

    const multipart = new FormData();
    multipart.append('operations', `{"query":"mutation($file: File!) { uploadMedia(file: $file) { __typename } }","variables":{"file":null,"x":${deep()}}}`);
    multipart.append('map', '{"0":["variables.file"]}');
    multipart.append('0', new File([new Uint8Array(await png('#336699'))], 'a.png', { type: 'image/png' }));
    const upload = await t.request('POST', '/graphql', { key: t.ownerKey, form: multipart });
    expect(upload.status, upload.text).toBe(400);
    expect(upload.body.errors[0].message).toBe(`variables: ${DEPTH_MESSAGE}`);
  });

  it('graphql-ws: a subscribe message with deep variables gets an error saying the limit, and the socket stays usable', async () => {
    const socket = new WebSocket(t.url.replace('http', 'ws') + '/graphql', 'graphql-transport-ws');
    const messages: Array<{ id?: string; type: string; payload?: unknown }> = [];
    const waiters: Array<() => void> = [];
    socket.on('message', (data) => {
      messages.push(JSON.parse(String(data)));
      waiters.splice(0).forEach((wake) => wake());
    });
    const next = async (type: string, id?: string) => {
      for (;;) {
        const found = messages.find((m) => m.type === type && (id === undefined || m.id === id));
        if (found) return found;
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    };
    await new Promise((resolve) => socket.once('open', resolve));
    socket.send(JSON.stringify({ type: 'connection_init', payload: { 'X-API-Key': t.ownerKey } }));
    await next('connection_ack');
    socket.send(`{"id":"1","type":"subscribe","payload":{"query":"subscription { subKeyEvents { type } }","variables":{"x":${deep()}}}}`);
    expect((await next('error', '1')).payload).toEqual([expect.objectContaining({ message: `variables: ${DEPTH_MESSAGE}` })]);
    socket.send(JSON.stringify({ id: '2', type: 'subscribe', payload: { query: `{ health(x: ${deep(200)}) }` } }));
    expect((await next('error', '2')).payload).toEqual([expect.objectContaining({ message: `query: ${DEPTH_MESSAGE}` })]);
    socket.send(JSON.stringify({ id: '3', type: 'subscribe', payload: { query: '{ health }' } }));
    expect(await next('next', '3')).toMatchObject({ payload: { data: { health: expect.anything() } } });
    socket.close();
  });

  it('a multipart field that carries JSON (tags) nested too deep is a 400 naming it', async () => {
    const res = await t.request('POST', '/api/community/contribute', {
      key: t.ownerKey,
      form: form({ body: await png('#884422'), name: 'a.png', type: 'image/png' }, { tags: deep() }),
    });
    expect(res.status, res.text).toBe(400);
    expect(res.body.error).toBe(`tags: ${DEPTH_MESSAGE}`);
  });
});

describe('non-finite numbers', () => {
  it('ingest: unlock_price of NaN, abc, Infinity or 1e400 (and such a latitude) is a 400 naming the field', async () => {
    const image = await png('#225577');
    for (const value of ['NaN', 'abc', 'Infinity', '-Infinity', '1e400']) {
      const res = await t.request('POST', '/api/community/ingest', { key: t.ownerKey, form: form({ body: image, name: 'p.png', type: 'image/png' }, { unlock_price: value }) });
      expect(res.status, `${value}: ${res.text}`).toBe(400);
      expect(res.body.error).toMatch(/^unlock_price: expected a number of coins from 0 to/);
      const position = await t.request('POST', '/api/community/ingest', { key: t.ownerKey, form: form({ body: image, name: 'p.png', type: 'image/png' }, { latitude: value, longitude: '10' }) });
      expect(position.status, `${value}: ${position.text}`).toBe(400);
      expect(position.body.error).toBe('latitude: expected a number from -90 to 90');
    }
  });

  it('JSON: 1e400 (Infinity once parsed) is a 400 naming the field', async () => {
    const generate = await t.request('POST', '/api/generate', { key: t.ownerKey, rawBody: '{"prompt":"x","count":1e400}' });
    expect(generate.status, generate.text).toBe(400);
    expect(generate.body.error).toMatch(/^count: /);
    const gql = await t.request('POST', '/graphql', { key: t.ownerKey, rawBody: '{"query":"query($n: Int) { bounties(limit: $n) { __typename } }","variables":{"n":1e400}}' });
    // GraphQL over HTTP answers a variable it cannot coerce with 200 and the error (yoga), never a 500.
    expect(gql.status, gql.text).toBeLessThan(500);
    expect(gql.body.errors[0].message).toMatch(/Int cannot represent non-integer value: Infinity/);
  });
});

describe('generation judges the whole input before asking for a provider', () => {
  it('a field it does not take (width) is a 400 naming it; valid input with no provider configured is the documented 503', async () => {
    for (const [path, body] of [
      ['/api/generate', { prompt: 'x', width: -1 }],
      ['/api/replace/generate', { description: 'x', width: -1 }],
      ['/api/replace/batch', { descriptions: ['x'], width: -1 }],
    ] as const) {
      const refused = await t.request('POST', path, { key: t.ownerKey, body });
      expect(refused.status, `${path}: ${refused.text}`).toBe(400);
      expect(refused.body.error).toMatch(/^width: unknown field; expected /);
      const { width: _width, ...valid } = body;
      const unavailable = await t.request('POST', path, { key: t.ownerKey, body: valid });
      expect(unavailable.status, `${path}: ${unavailable.text}`).toBe(503);
      expect(unavailable.body).toEqual({ success: false, error: expect.stringMatching(/no image generation provider is configured/) });
    }
    const count = await t.request('POST', '/api/generate', { key: t.ownerKey, body: { prompt: 'x', count: 9 } });
    expect(count.status).toBe(400);
    expect(count.body.error).toMatch(/^count: /);
  });
});

describe('success: false carries error', () => {
  it('a pipeline whose step fails answers success false with error naming the step and why', async () => {
    const res = await t.request('POST', '/api/pipeline', { key: t.ownerKey, body: { steps: [{ name: 'gen', action: 'generate', params: { prompt: 'a lighthouse', count: 1 } }] } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.success).toBe(false);
    expect(Object.keys(res.body).slice(0, 2)).toEqual(['success', 'error']);
    expect(res.body.error).toMatch(/^step gen \(generate\) failed: no image generation provider is configured/);
    expect(res.body.pipeline.steps[0]).toMatchObject({ status: 'failed', error: { status: 503 } });
  });
});

describe('SVG render cost', () => {
  it('a 300-byte SVG with a filter is refused with 400 naming the file, before rendering', async () => {
    const svg =
      '<svg xmlns="http://www.w3.org/2000/svg" width="4000" height="4000"><filter id="f"><feTurbulence baseFrequency="0.9" numOctaves="10"/>' +
      '<feGaussianBlur stdDeviation="500"/></filter><rect width="100%" height="100%" filter="url(#f)"/></svg>';
    expect(svg.length).toBeLessThan(300);
    for (const path of ['/api/media/upload', '/api/community/contribute']) {
      const res = await t.request('POST', path, { key: t.ownerKey, form: form({ body: Buffer.from(svg), name: 'f.svg', type: 'image/svg+xml' }) });
      expect(res.status, `${path}: ${res.text}`).toBe(400);
      expect(res.body.error).toMatch(/^file: SVG filters .* are not accepted/);
    }
  });

  it('an SVG declaring 30,000 x 30,000 px is refused from its header (413), as docs/rest-api.md says of every format', async () => {
    const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="30000" height="30000"><rect width="10" height="10"/></svg>';
    const res = await t.request('POST', '/api/media/upload', { key: t.ownerKey, form: form({ body: Buffer.from(svg), name: 'big.svg', type: 'image/svg+xml' }) });
    expect(res.status, res.text).toBe(413);
    expect(res.body.error).toMatch(/^file: the image (declares more pixels than|is 30000x30000 pixels, over) the 80,000,000-pixel limit; refused before decoding$/);
    const list = await t.request('GET', '/api/media/list', { key: t.ownerKey });
    expect(list.body.items).toHaveLength(0);
  });
});
