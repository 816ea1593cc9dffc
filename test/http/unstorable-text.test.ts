// A NUL character or an unpaired surrogate in any string is a 400 naming where it is, on REST (body,
// query, path) and GraphQL (variables and strings written in the query), never a 500 from the
// database; and the request spends none of a sub-key's budget.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.stop());

const NUL = 'a\u0000b';
const LONE = 'x\uD800y';

describe('text the database cannot store', () => {
  it('REST: 400 naming the field, in a JSON body (also nested) and the query string', async () => {
    for (const [method, path, body, field] of [
      ['POST', '/api/media/folders', { name: NUL }, 'name'],
      ['POST', '/api/media/collections', { name: 'ok', description: LONE }, 'description'],
      ['POST', '/api/automation/webhooks', { url: 'https://example.org/hook', events: ['job.completed', NUL] }, 'events.1'],
    ] as const) {
      const res = await t.request(method, path, { key: t.ownerKey, body });
      expect(res.status, `${path}: ${res.text}`).toBe(400);
      expect(res.body.error).toMatch(new RegExp(`^${field.replace('.', '\\.')}: `));
    }
    const query = await t.request('GET', `/api/media/search?q=${encodeURIComponent(NUL)}`, { key: t.ownerKey });
    expect(query.status, query.text).toBe(400);
    expect(query.body.error).toMatch(/^q: /);
  });

  it('REST: 400 naming the path parameter of a stream route (no GraphQL variable would catch it)', async () => {
    const res = await t.request('GET', `/files/1/${encodeURIComponent(NUL)}.jpg`, { key: t.ownerKey });
    expect(res.status, res.text).toBe(400);
    expect(res.body.error).toMatch(/^filename: /);
  });

  it('GraphQL: 400-class error for a variable and for a literal, not a 500', async () => {
    const variable = await t.graphql('mutation($name: String!) { createFolder(name: $name) { __typename } }', { name: LONE }, { key: t.ownerKey });
    expect(variable.body.errors?.[0]?.extensions?.status, variable.text).toBe(400);
    expect(variable.body.errors[0].message).toMatch(/^name: /);
    const literal = await t.graphql(`mutation { createFolder(name: ${JSON.stringify(NUL)}) { __typename } }`, undefined, { key: t.ownerKey });
    expect(literal.body.errors?.[0]?.extensions?.status, literal.text).toBe(400);
  });

  it('spends none of a sub-key budget', async () => {
    const sub = await t.request('POST', '/api/platform/sub-keys', { key: t.ownerKey, body: { scopes: 'media', credit_limit: 5 } });
    expect((await t.request('POST', '/api/media/folders', { key: sub.body.sub_key, body: { name: NUL } })).status).toBe(400);
    await t.graphql('mutation($name: String!) { createFolder(name: $name) { __typename } }', { name: NUL }, { key: sub.body.sub_key });
    const list = await t.request('GET', '/api/platform/sub-keys', { key: t.ownerKey });
    const listed = list.body.sub_keys.find((k: { id: number }) => k.id === sub.body.id);
    expect(listed.usage.requests_used).toBe(0);
  });
});
