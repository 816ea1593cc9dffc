// Routes without parameters are found by one lookup of their method and path (rest-shim/shim.ts);
// everything else about them stays as Express answers it: a trailing slash, another letter case,
// HEAD for a GET, 405 for another method, and a multipart route judged before its body is read.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.stop());

describe('routes found by their exact path', () => {
  it('answer as Express routing does for the spellings it accepts', async () => {
    for (const path of ['/api/live-editor/status', '/api/live-editor/status/', '/API/Live-Editor/Status', '/api/live-editor/status?x=1']) {
      const res = await t.request('GET', path, { key: t.ownerKey });
      expect(res.status, path).toBe(200);
      expect(res.body.success, path).toBe(true);
    }
    const head = await fetch(`${t.url}/api/live-editor/status`, { method: 'HEAD', headers: { 'X-API-Key': t.ownerKey } });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });

  it('leave other methods to the 405 and unknown paths to the 404', async () => {
    const wrongMethod = await t.request('DELETE', '/api/live-editor/status', { key: t.ownerKey });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('GET');
    expect((await t.request('GET', '/api/live-editor/statuses', { key: t.ownerKey })).status).toBe(404);
  });

  it('run every handler of a multipart route: a stranger is refused before the body is read', async () => {
    const form = new FormData();
    form.set('file', new Blob([new Uint8Array(1024)], { type: 'image/jpeg' }), 'a.jpg');
    const stranger = await fetch(`${t.url}/api/media/upload`, { method: 'POST', body: form });
    expect(stranger.status).toBe(401);
    const empty = await fetch(`${t.url}/api/media/upload`, { method: 'POST', headers: { 'X-API-Key': t.ownerKey }, body: new FormData() });
    expect(empty.status).toBe(400);
  });
});
