// The generated typed client against the running service, and the client script of docs/graphql.md as written.
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { ImageServiceClient, GraphQLRequestError, JobProgressDocument, ServiceUnreachableError, ViewerDocument, CreateSubKeyDocument, ListSubKeysDocument } from '../../client/index.js';
import { LOCAL_FETCH, QUICK_JOBS, startTestApp, type TestApp } from '../helpers/app.js';
import { startFixtureSite } from '../fixtures/site.js';

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

  it('says in one line that the service cannot be reached', async () => {
    // A port that was just free: nothing listens there.
    const server = createServer().listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    const client = new ImageServiceClient({ url: `http://127.0.0.1:${port}/` });
    const error = await client.request(ViewerDocument).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceUnreachableError);
    expect((error as Error).message).toBe(`cannot reach the service at http://127.0.0.1:${port}: ECONNREFUSED`);
  });
});

describe('ImageServiceClient.subscribe', () => {
  it("follows a real scrape's progress until it completes", { timeout: 120_000 }, async () => {
    const site = await startFixtureSite();
    const app = await startTestApp({ fetch: LOCAL_FETCH, jobs: QUICK_JOBS });
    const client = new ImageServiceClient({ url: app.url, apiKey: app.ownerKey, webSocketImpl: WebSocket });
    try {
      const started = await app.request('POST', '/api/scrape', { key: app.ownerKey, body: { url: `${site.url}/`, force: true } });
      const seen = [];
      for await (const { jobUpdated } of client.subscribe(JobProgressDocument, { id: started.body.job_id })) seen.push(jobUpdated);
      expect(seen[0]!.databaseId).toBe(started.body.job_id);
      expect(seen.at(-1)).toMatchObject({ kind: 'scrape', state: 'completed', error: null });
      expect(seen.at(-1)!.assetsStored).toBeGreaterThan(0);
      const stored = seen.map((s) => s.assetsStored);
      expect([...stored].sort((a, b) => a - b)).toEqual(stored);

      // Another account's job is refused, as GraphQLRequestError.
      const other = await app.createAccount('client-other');
      const stranger = new ImageServiceClient({ url: app.url, apiKey: other.key, webSocketImpl: WebSocket });
      const refused = await (async () => {
        for await (const update of stranger.subscribe(JobProgressDocument, { id: started.body.job_id })) return update;
      })().catch((e: unknown) => e);
      await stranger.close();
      expect(refused).toBeInstanceOf(GraphQLRequestError);
      expect((refused as GraphQLRequestError).message).toContain(`no job ${started.body.job_id}`);
    } finally {
      await client.close();
      await app.stop();
      await site.close();
    }
  });
});

describe('the typed-client script of docs/graphql.md', () => {
  const root = join(import.meta.dirname, '..', '..');
  const page = readFileSync(join(root, 'docs', 'graphql.md'), 'utf8');
  const section = page.slice(page.indexOf('## Typed client'));
  const snippet = /```ts\n([\s\S]*?)```/.exec(section)?.[1] ?? '';

  /** Runs the snippet as `npx tsx example.ts` would, from a folder with data/initial-account.json. */
  async function runSnippet(env: Record<string, string>) {
    const dir = mkdtempSync(join(tmpdir(), 'docs-client-'));
    try {
      mkdirSync(join(dir, 'data'));
      copyFileSync(join(t.config.dataDir, 'initial-account.json'), join(dir, 'data', 'initial-account.json'));
      // Only the import of the client changes: the script sits outside the repository here.
      const script = snippet.replace("'./client/index.js'", `'${pathToFileURL(join(root, 'client', 'index.ts')).href}'`);
      writeFileSync(join(dir, 'example.mts'), script);
      return await promisify(execFile)(join(root, 'node_modules', '.bin', 'tsx'), ['example.mts'], { cwd: dir, env: { ...process.env, ...env }, timeout: 60_000 }).then(
        ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
        (error: { code?: number; stdout?: string; stderr?: string }) => ({ code: error.code ?? -1, stdout: error.stdout ?? '', stderr: error.stderr ?? '' }),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it('is a whole script that uses the client', () => {
    expect(snippet).toContain("from './client/index.js'");
    expect(snippet).toContain('new ImageServiceClient(');
  });

  it('prints the viewer with the key the first start saved', { timeout: 60_000 }, async () => {
    const run = await runSnippet({ SERVICE_URL: t.url });
    expect(run, run.stderr).toMatchObject({ code: 0 });
    expect(run.stdout.trim()).toBe('owner (operator tier)');
  });

  it('reports a wrong key as 401 with exit status 1', { timeout: 60_000 }, async () => {
    const run = await runSnippet({ SERVICE_URL: t.url, IMAGE_SERVICE_KEY: 'mk_wrong' });
    expect(run.code).toBe(1);
    expect(run.stderr.trim()).toBe('401 invalid API key');
  });
});
