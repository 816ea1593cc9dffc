// Integers a REST caller sends beyond GraphQL's Int (32 bits) are a 400 naming the field, in the
// body and in the query string alike, never a 500 from a variable GraphQL cannot take.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.stop());

describe('integers beyond 32 bits', () => {
  const cases: Array<[string, string, Record<string, unknown> | undefined, string]> = [
    ['POST', '/api/scrape', { url: 'https://example.org/', max_files: 2 ** 31 }, 'max_files'],
    ['POST', '/api/automation/schedules', { url: 'https://example.org/', name: 'n', hour: 2 ** 40 }, 'hour'],
    ['POST', '/api/platform/sub-keys', { credit_limit: -(2 ** 31) - 1 }, 'credit_limit'],
    ['GET', '/api/media/list?limit=99999999999', undefined, 'limit'],
    ['GET', '/api/media/list?offset=2147483648', undefined, 'offset'],
  ];
  for (const [method, path, body, field] of cases) {
    it(`${method} ${path} ${body ? JSON.stringify(body) : ''}: 400 naming ${field}`, async () => {
      const res = await t.request(method, path, { key: t.ownerKey, body });
      expect(res.status, res.text).toBe(400);
      expect(res.body.error).toMatch(new RegExp(`^${field}: `));
    });
  }

  it('still takes the largest 32-bit integer where the field allows it', async () => {
    const res = await t.request('GET', '/api/media/list?offset=2147483647', { key: t.ownerKey });
    expect(res.status, res.text).toBe(200);
  });
});
