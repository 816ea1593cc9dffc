// GraphQL multipart uploads (the GraphQL multipart request spec) share the REST upload limit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { photo } from '../helpers/images.js';
import { MISSING_KEY_MESSAGE } from '../../src/modules/access/index.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ uploadMaxBytes: 200 * 1024 });
});
afterAll(() => t.stop());

function multipart(file: Buffer): FormData {
  const data = new FormData();
  data.append('operations', JSON.stringify({ query: 'mutation ($file: File!) { uploadMedia(file: $file) { __typename ... on MutationUploadMediaSuccess { data { media { name bytes } } } ... on ServiceError { message } } }', variables: { file: null } }));
  data.append('map', JSON.stringify({ 0: ['variables.file'] }));
  data.append('0', new Blob([new Uint8Array(file)], { type: 'image/jpeg' }), 'gql.jpg');
  return data;
}

describe('GraphQL uploads', () => {
  it('stores an uploaded file', async () => {
    const res = await fetch(`${t.url}/graphql`, { method: 'POST', headers: { 'X-API-Key': t.ownerKey }, body: multipart(await photo('#224466', { seed: 7, width: 200, height: 100 })) });
    const body = await res.json();
    expect(body.data.uploadMedia).toMatchObject({ __typename: 'MutationUploadMediaSuccess', data: { media: { name: 'gql.jpg' } } });
  });

  it('refuses a file over UPLOAD_MAX_BYTES', async () => {
    const res = await fetch(`${t.url}/graphql`, { method: 'POST', headers: { 'X-API-Key': t.ownerKey }, body: multipart(Buffer.alloc(300 * 1024, 7)) });
    const body = await res.json();
    expect(body.data?.uploadMedia?.__typename).not.toBe('MutationUploadMediaSuccess');
    expect(JSON.stringify(body)).toMatch(/size|limit|large/i);
  });

  it('checks the key of a multipart request before reading its body', async () => {
    // A body that never ends: only a refusal made from the headers can answer it.
    const endless = () => new ReadableStream<Uint8Array>({ pull: (controller) => new Promise((resolve) => setTimeout(() => resolve(controller.enqueue(new Uint8Array(64 * 1024))), 5)) });
    for (const [headers, error] of [
      [{}, MISSING_KEY_MESSAGE],
      [{ 'X-API-Key': 'mk_invalid' }, 'invalid API key'],
    ] as const) {
      const upload = new AbortController();
      const res = await fetch(`${t.url}/graphql`, {
        method: 'POST',
        headers: { 'Content-Type': 'multipart/form-data; boundary=xyz', ...headers },
        body: endless(),
        duplex: 'half',
        signal: upload.signal,
      } as RequestInit);
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ success: false, error });
      upload.abort();
    }
  });
});
