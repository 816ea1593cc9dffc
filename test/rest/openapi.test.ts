// The OpenAPI document (GET /openapi.json) and its page (GET /docs). The document is valid OpenAPI
// 3.1 (checked by @seriousme/openapi-schema-validator, and every schema in it compiles in Ajv's
// strict draft 2020-12 mode); it holds exactly the route table, with each row's auth, scope,
// inputs, answers and failures. test/rest/contract.test.ts checks real calls and answers against it.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '../../rest-shim/routes.js';
import type { AnyRoute } from '../../rest-shim/route.js';
import { keyRuleName } from '../../src/modules/access/index.js';
import { buildOpenApiDocument, errorsOf, openApiPath } from '../../rest-shim/openapi.js';
import { swaggerUiFolder } from '../../src/http/docs.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { openApiChecker, type OpenApiDocument } from '../helpers/openapi.js';
import { chromiumAvailable, launchBrowser } from '../helpers/browser.js';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

let t: TestApp;
let doc: OpenApiDocument;
let rebuilt: ReturnType<typeof buildOpenApiDocument>;
beforeAll(async () => {
  // Built before the app starts, not between two requests: building takes seconds on a loaded machine
  // and blocks this process, server included, long enough for a kept-alive socket to close under the
  // next request (ECONNRESET). Its info (the service's name and version) is the served one's.
  rebuilt = buildOpenApiDocument(routes, { title: '', version: '' });
  t = await startTestApp();
  doc = (await t.request('GET', '/openapi.json')).body;
});
afterAll(async () => {
  await t.stop();
});

const operationOf = (route: AnyRoute) => doc.paths[openApiPath(route.path)]?.[route.method.toLowerCase()];

describe('GET /openapi.json', () => {
  it('answers the document as JSON without a key', async () => {
    const res = await t.request('GET', '/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body.openapi).toBe('3.1.0');
    expect(res.body.info).toMatchObject({ title: 'Image service', version: expect.stringMatching(/^\d+\.\d+\.\d+/) });
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('holds schemas that a strict JSON Schema 2020-12 validator compiles, every $ref resolving', () => {
    expect(openApiChecker(doc).compileAll()).toBeGreaterThan(routes.length);
  });

  it('has every route of the table with its method, and no path or method the table lacks', () => {
    const table = routes.map((r) => `${r.method} ${openApiPath(r.path)}`).sort();
    const documented = Object.entries(doc.paths as Record<string, object>)
      .flatMap(([path, item]) => Object.keys(item).filter((m) => METHODS.includes(m)).map((m) => `${m.toUpperCase()} ${path}`))
      .sort();
    expect(documented).toEqual(table);
    const ids = Object.values(doc.paths as Record<string, Record<string, { operationId: string }>>).flatMap((item) => Object.values(item).map((op) => op.operationId));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('names every path parameter of a route as a required path parameter', () => {
    for (const route of routes) {
      const names = [...route.path.matchAll(/:(\w+)/g)].map((m) => m[1]);
      const declared = (operationOf(route).parameters ?? []).filter((p: { in: string }) => p.in === 'path');
      expect(declared.map((p: { name: string }) => p.name), `${route.method} ${route.path}`).toEqual(names);
      expect(declared.every((p: { required: boolean }) => p.required)).toBe(true);
    }
  });

  it("states each route's auth: none, an API key with the row's key rule, or the admin token", () => {
    for (const route of routes) {
      const op = operationOf(route);
      const need = route.key && keyRuleName(route.key);
      const expected = route.auth === 'none' ? [] : route.auth === 'admin' ? [{ adminToken: [] }, { adminBearer: [] }] : [{ apiKey: need ? [need] : [] }];
      expect(op.security, `${route.method} ${route.path}`).toEqual(expected);
      if (route.auth === 'key') expect(op['x-scope']).toBe(need);
      // Every security requirement names a declared scheme.
      for (const requirement of op.security) for (const scheme of Object.keys(requirement)) expect(doc.components.securitySchemes[scheme]).toBeDefined();
    }
    expect(doc.components.securitySchemes.apiKey).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-API-Key' });
    expect(doc.components.securitySchemes.adminToken).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-Admin-Token' });
  });

  it('answers JSON in the envelope: success first, then the documented fields; failures as {success: false, error}', () => {
    for (const route of routes) {
      const responses = operationOf(route).responses as Record<string, { content?: Record<string, { schema: { $ref?: string; properties?: object; anyOf?: Array<{ properties: object }> } }> }>;
      if (route.kind !== 'stream' && route.response) {
        const schema = responses[String(route.successStatus ?? 200)]!.content!['application/json']!.schema;
        for (const branch of schema.anyOf ?? [schema]) expect(Object.keys(branch.properties!)[0], `${route.method} ${route.path}`).toBe('success');
      }
      for (const status of Object.keys(errorsOf(route))) {
        expect(responses[status]?.content?.['application/json']?.schema, `${route.method} ${route.path} ${status}`).toEqual({ $ref: '#/components/schemas/Error' });
      }
    }
    expect(doc.components.schemas.Error).toMatchObject({ properties: { success: { const: false }, error: { type: 'string' } }, required: ['success', 'error'] });
  });

  it('lists the failures a route can answer: from its auth and inputs, and the ones the row names', () => {
    const statuses = (method: string, path: string) => Object.keys(doc.paths[path][method].responses);
    // A keyed route with a path id and a JSON body.
    expect(statuses('patch', '/api/media/{id}')).toEqual(expect.arrayContaining(['200', '400', '401', '403', '404', '413', '429', '500']));
    // A conflict of its own, an admin route (no quota), and a public one.
    expect(statuses('get', '/download/{job_id}')).toEqual(expect.arrayContaining(['200', '401', '403', '404', '409', '429']));
    expect(statuses('post', '/api/admin/accounts')).toEqual(expect.arrayContaining(['201', '400', '401', '409']));
    expect(statuses('post', '/api/admin/accounts')).not.toContain('429');
    expect(statuses('get', '/healthz').sort()).toEqual(['200', '503']);
    expect(doc.paths['/api/media/{id}'].patch.responses['429'].headers['Retry-After']).toBeDefined();
  });

  it('describes request bodies: JSON, multipart with its file fields, and query parameters with their types', () => {
    const upload = doc.paths['/api/media/upload'].post.requestBody;
    expect(Object.keys(upload.content)).toEqual(['multipart/form-data']);
    expect(upload.content['multipart/form-data'].schema.properties.file).toMatchObject({ type: 'string', format: 'binary' });
    expect(upload.content['multipart/form-data'].schema.required).toContain('file');
    const vision = doc.paths['/api/vision/analyze'].post.requestBody;
    expect(Object.keys(vision.content).sort()).toEqual(['application/json', 'multipart/form-data']);
    // Reused from the module's own input schema (src/modules/scrape/scrape.input.ts): its defaults and bounds.
    const scrape = doc.paths['/api/scrape'].post.requestBody.content['application/json'].schema;
    expect(scrape.required).toEqual(['url']);
    expect(scrape.properties.max_files).toMatchObject({ type: 'integer', minimum: 1, maximum: 10_000, default: 100 });
    const limit = doc.paths['/api/media/list'].get.parameters.find((p: { name: string }) => p.name === 'limit');
    expect(limit).toMatchObject({ in: 'query', required: false, schema: { type: 'integer', maximum: 200, default: 50 } });
  });

  it('describes binary answers by their content types', () => {
    expect(Object.keys(doc.paths['/download/{job_id}'].get.responses['200'].content)).toEqual(['application/zip']);
    expect(Object.keys(doc.paths['/files/{job_id}/{filename}'].get.responses)).toEqual(expect.arrayContaining(['200', '206', '304', '416']));
    expect(Object.keys(doc.paths['/gallery/{token}'].get.responses['200'].content)).toEqual(['text/html']);
    expect(doc.paths['/gallery/{token}'].post.responses['303'].headers.Location).toBeDefined();
    expect(doc.paths['/docs'].get.responses['200'].content['text/html']).toBeDefined();
  });

  it('names shared shapes once, as components', () => {
    expect(Object.keys(doc.components.schemas)).toEqual(expect.arrayContaining(['MediaItem', 'Collection', 'StockList', 'SubKey', 'Schedule', 'Webhook', 'Error']));
    const item = doc.paths['/api/media/{id}'].get.responses['200'].content['application/json'].schema.properties.media;
    expect(item).toEqual({ $ref: '#/components/schemas/MediaItem' });
  });

  it('is the document the table makes, made once per process', async () => {
    expect(doc).toEqual(JSON.parse(JSON.stringify({ ...rebuilt, info: doc.info })));
    const again = await t.request('GET', '/openapi.json');
    expect(again.text).toBe(JSON.stringify(doc));
  });
});

describe('GET /docs', () => {
  const assetsOf = (html: string) => [...html.matchAll(/\s(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);

  it('answers an HTML page that references only assets of this service', async () => {
    const res = await t.request('GET', '/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('content-security-policy')).toMatch(/script-src 'self';/);
    expect(res.headers.get('content-security-policy')).toMatch(/connect-src 'self';/);
    const assets = assetsOf(res.text);
    expect(assets.length).toBeGreaterThanOrEqual(3);
    for (const asset of assets) expect(asset, 'a path on this origin').toMatch(/^\/(?!\/)/);
    expect(res.text).not.toMatch(/<script>|<script [^>]*>[^<]/); // no inline script
  });

  it('serves every asset the page references, Swagger UI from the installed swagger-ui-dist', async () => {
    const page = await t.request('GET', '/docs');
    for (const asset of assetsOf(page.text).filter((a) => a !== '/openapi.json')) {
      const res = await fetch(t.url + asset);
      expect(res.status, asset).toBe(200);
      expect(res.headers.get('content-type'), asset).toMatch(asset.endsWith('.css') ? /^text\/css/ : asset.endsWith('.js') ? /^text\/javascript/ : /^image\/png/);
      await res.arrayBuffer();
    }
    const bundle = await fetch(`${t.url}/docs/swagger-ui-bundle.js`, { headers: { 'Accept-Encoding': 'identity' } });
    expect(Buffer.from(await bundle.arrayBuffer()).equals(readFileSync(join(swaggerUiFolder(), 'swagger-ui-bundle.js')))).toBe(true);
    expect(statSync(join(swaggerUiFolder(), 'swagger-ui.css')).size).toBeGreaterThan(10_000);
    expect((await fetch(`${t.url}/docs/index.html`)).status).toBe(404); // only the files the page uses
  });

  it.skipIf(!chromiumAvailable)('renders every operation in a browser, loading nothing from any other origin', async () => {
    const { browser, close } = await launchBrowser();
    try {
      const page = await browser.newPage();
      const requested: string[] = [];
      const problems: string[] = [];
      page.on('request', (request) => requested.push(request.url()));
      page.on('console', (message) => message.type() === 'error' && problems.push(message.text()));
      page.on('pageerror', (error) => problems.push(error.message));
      await page.goto(`${t.url}/docs`);
      await page.waitForSelector('.opblock', { timeout: 30_000 });
      // Swagger UI renders a long list virtually (150 tags and operations or more): only what is in
      // view is in the page, so the operations are collected while scrolling to the end.
      const operations = new Set<string>();
      for (let step = 0; step < 500; step++) {
        for (const id of await page.locator('.opblock').evaluateAll((blocks) => blocks.map((block) => block.id))) operations.add(id);
        const atEnd = await page.evaluate(() => {
          window.scrollBy(0, window.innerHeight / 2);
          return window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 2;
        });
        await page.waitForTimeout(50);
        if (atEnd) {
          for (const id of await page.locator('.opblock').evaluateAll((blocks) => blocks.map((block) => block.id))) operations.add(id);
          break;
        }
      }
      expect(operations.size).toBe(routes.length);
      expect(requested.filter((u) => !u.startsWith(`${t.url}/`) && !u.startsWith('data:'))).toEqual([]);
      expect(requested).toContain(`${t.url}/openapi.json`);
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  }, 60_000);
});
