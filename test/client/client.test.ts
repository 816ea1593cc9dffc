// The generated typed client against the running service.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ImageServiceClient, GraphQLRequestError, ViewerDocument, CreateSubKeyDocument, ListSubKeysDocument } from '../../client/index.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.stop());

describe('ImageServiceClient', () => {
  it('runs typed documents and returns typed data', async () => {
    const client = new ImageServiceClient({ url: t.url, apiKey: t.ownerKey });
    const { viewer } = await client.request(ViewerDocument);
    expect(viewer.handle).toBe('owner');
    const created = await client.request(CreateSubKeyDocument, { input: { label: 'typed', scopes: 'media' } });
    expect(created.createSubKey.__typename).toBe('MutationCreateSubKeySuccess');
    const listed = await client.request(ListSubKeysDocument, { first: 10 });
    expect(listed.viewer.subKeys.edges.map((e) => e.node.label)).toContain('typed');
  });

  it('throws GraphQLRequestError carrying code and status', async () => {
    const client = new ImageServiceClient({ url: t.url, apiKey: 'mk_wrong' });
    const error = await client.request(ViewerDocument).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GraphQLRequestError);
    expect((error as GraphQLRequestError).errors[0]).toMatchObject({ message: 'invalid API key', extensions: { code: 'UNAUTHENTICATED', status: 401 } });
    expect((error as GraphQLRequestError).httpStatus).toBe(401);
  });
});
