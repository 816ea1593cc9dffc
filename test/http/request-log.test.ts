// No secret in a log line (issue 20: the access log recorded `POST /api/platform/sub-keys/sk_.../revoke`
// with the whole sub-key, also when the revoke failed and the key stayed valid). Every route whose
// path carries a secret or capability is called, successfully and not, with everything the
// service logs captured; the secret must appear in no line.
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createLogger } from '../../src/platform/logger.js';
import { pathRedactor, REDACTED } from '../../src/http/request-log.js';
import { routes } from '../../rest-shim/routes.js';

let t: TestApp;
const lines: string[] = [];

beforeAll(async () => {
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  t = await startTestApp({}, { logger: createLogger('info', sink) });
});
afterAll(() => t.stop());

/** Log lines written from now until `fn` has run and its requests were logged. */
async function logged(fn: () => Promise<unknown>): Promise<string[]> {
  const from = lines.length;
  await fn();
  // The access line is written on 'finish', a tick after the client has the answer.
  await new Promise((resolve) => setTimeout(resolve, 50));
  return lines.slice(from);
}

function requestLines(written: string[]): Array<{ method: string; path: string; status: number }> {
  return written.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === 'request') as never;
}

async function subKey(key = t.ownerKey): Promise<string> {
  return (await t.request('POST', '/api/platform/sub-keys', { key, body: {} })).body.sub_key as string;
}

describe('the access log', () => {
  it('never shows a sub-key in the revoke path: revoked, refused (another account) or not found', async () => {
    const mine = await subKey();
    const other = await t.createAccount('log-other');
    const theirs = await subKey(other.key);
    const missing = `sk_${'A'.repeat(43)}`;
    const written = await logged(async () => {
      expect((await t.request('POST', `/api/platform/sub-keys/${mine}/revoke`, { key: t.ownerKey })).status).toBe(200);
      expect((await t.request('POST', `/api/platform/sub-keys/${theirs}/revoke`, { key: t.ownerKey })).status).toBe(404);
      expect((await t.request('POST', `/api/platform/sub-keys/${missing}/revoke`, { key: t.ownerKey })).status).toBe(404);
      // A sub-key revoking (403: master key only), and no key at all (401).
      expect((await t.request('POST', `/api/platform/sub-keys/${theirs}/revoke`, { key: theirs })).status).toBe(403);
      expect((await t.request('POST', `/api/platform/sub-keys/${theirs}/revoke`)).status).toBe(401);
    });
    for (const secret of [mine, theirs, missing]) expect(written.join('\n')).not.toContain(secret.slice(3));
    expect(requestLines(written).map((l) => `${l.status} ${l.method} ${l.path}`)).toEqual([
      `200 POST /api/platform/sub-keys/${REDACTED}/revoke`,
      `404 POST /api/platform/sub-keys/${REDACTED}/revoke`,
      `404 POST /api/platform/sub-keys/${REDACTED}/revoke`,
      `403 POST /api/platform/sub-keys/${REDACTED}/revoke`,
      `401 POST /api/platform/sub-keys/${REDACTED}/revoke`,
    ]);
    // The key that was refused still works: nothing about it reached the log.
    expect((await t.request('GET', '/api/live-editor/status', { key: theirs })).status).toBe(200);
  });

  it('blanks a key-like segment on any path (a mistyped route, a 404, a 405)', async () => {
    const key = await subKey();
    const written = await logged(async () => {
      expect((await t.request('POST', `/api/platform/sub-keys/${key}/revok`, { key: t.ownerKey })).status).toBe(404);
      expect((await t.request('GET', `/api/platform/sub-keys/${key}/revoke`, { key: t.ownerKey })).status).toBe(405);
      expect((await t.request('GET', `/nothing/${t.ownerKey}`)).status).toBe(404);
    });
    expect(written.join('\n')).not.toContain(key.slice(3));
    expect(written.join('\n')).not.toContain(t.ownerKey.slice(3));
    expect(requestLines(written).map((l) => l.path)).toEqual([`/api/platform/sub-keys/${REDACTED}/revok`, `/api/platform/sub-keys/${REDACTED}/revoke`, `/nothing/${REDACTED}`]);
  });

  it('never shows a stock list join token, joined or refused', async () => {
    const owner = await t.createAccount('log-list-owner');
    const joiner = await t.createAccount('log-list-joiner');
    const list = (await t.request('POST', '/api/media/stock/lists', { key: owner.key, body: { name: 'shared' } })).body.list_id;
    const token = (await t.request('POST', `/api/community/lists/${list}/share`, { key: owner.key })).body.share_token as string;
    const wrong = `${token.slice(0, -4)}AAAA`;
    const written = await logged(async () => {
      expect((await t.request('POST', `/api/community/lists/join/${token}`, { key: joiner.key })).status).toBe(200);
      expect((await t.request('POST', `/api/community/lists/join/${wrong}`, { key: joiner.key })).status).toBe(404);
      expect((await t.request('POST', `/api/community/lists/join/${token}`)).status).toBe(401);
    });
    expect(written.join('\n')).not.toContain(token);
    expect(written.join('\n')).not.toContain(wrong);
    expect(requestLines(written).map((l) => `${l.status} ${l.path}`)).toEqual([200, 404, 401].map((s) => `${s} /api/community/lists/join/${REDACTED}`));
  });

  it('never shows a gallery share token: the page, a wrong password, an unknown token', async () => {
    const collection = (await t.request('POST', '/api/media/collections', { key: t.ownerKey, body: { name: 'log gallery' } })).body.collection_id;
    const open = (await t.request('POST', `/api/media/collections/${collection}/share`, { key: t.ownerKey, body: {} })).body.share_token as string;
    const locked = await t.request('POST', '/api/media/collections', { key: t.ownerKey, body: { name: 'log locked' } });
    const guarded = (await t.request('POST', `/api/media/collections/${locked.body.collection_id}/share`, { key: t.ownerKey, body: { password: 'hunter22' } })).body.share_token as string;
    const written = await logged(async () => {
      expect((await t.request('GET', `/gallery/${open}`)).status).toBe(200);
      expect((await t.request('GET', `/gallery/${open}x`)).status).toBe(404);
      const wrongPassword = await t.request('POST', `/gallery/${guarded}`, { rawBody: 'password=nope', headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
      expect(wrongPassword.status).toBe(401);
    });
    for (const token of [open, guarded]) expect(written.join('\n')).not.toContain(token);
    expect(requestLines(written).map((l) => `${l.status} ${l.method} ${l.path}`)).toEqual([`200 GET /gallery/${REDACTED}`, `404 GET /gallery/${REDACTED}`, `401 POST /gallery/${REDACTED}`]);
  });

  it('never shows a key sent to GraphQL (revokeSubKey, a refused key in the header)', async () => {
    const key = await subKey();
    const written = await logged(async () => {
      await t.graphql('mutation($k: String!) { revokeSubKey(key: $k) { __typename } }', { k: key }, { key: t.ownerKey });
      await t.graphql('{ health }', {}, { key });
    });
    expect(written.length).toBeGreaterThan(0);
    expect(written.join('\n')).not.toContain(key.slice(3));
  });
});

describe('the route table', () => {
  it('declares every path parameter that names a secret or capability as secret', () => {
    const undeclared = routes.flatMap((r) =>
      [...r.path.matchAll(/:([A-Za-z_]+)/g)].map((m) => m[1]!).filter((p) => /key|token|secret|password|sig|code/i.test(p) && !r.secretParams?.includes(p) && !NOT_SECRET.has(`${r.path} ${p}`)).map((p) => `${r.method} ${r.path} :${p}`),
    );
    expect(undeclared).toEqual([]);
  });

  it('redacts exactly the declared segments', () => {
    const redact = pathRedactor([{ path: '/a/:token/b', secretParams: ['token'] }]);
    expect(redact('/a/s3cr3t/b')).toBe(`/a/${REDACTED}/b`);
    expect(redact('/a/s3cr3t/c')).toBe('/a/s3cr3t/c');
    expect(redact('/x/sk_1234567890/y')).toBe(`/x/${REDACTED}/y`);
    expect(redact('/x/sk_12345678/y')).toBe('/x/sk_12345678/y');
    expect(() => pathRedactor([{ path: '/a/:id', secretParams: ['token'] }])).toThrow(/declares a secret parameter it does not have/);
  });
});

/** Parameters whose name looks secret but whose value is public. */
const NOT_SECRET = new Set(['/api/community/portfolio/:code code']);
