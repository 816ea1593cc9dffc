// The REST shim's fixed documents run compiled (graphql-jit, src/graphql/compiled-execution.ts): each
// answers what graphql-js answers for the same document, variables and caller, data and errors alike,
// scope refusals, refusals inside resolvers and variables GraphQL cannot coerce included.
import type { DocumentNode, ExecutionResult } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { routes } from '../../rest-shim/routes.js';
import { checkedOperation } from '../../rest-shim/shim.js';
import type { RouteDefinition } from '../../rest-shim/route.js';
import type { Context } from '../../src/graphql/context.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.stop());

let requests = 0;

/**
 * The row's document as the shim runs it (marked to run compiled), and an unmarked copy, which
 * graphql-js runs (a copy of the same generated nodes, without source locations, as the shim's are).
 */
function documents(method: string, path: string): { compiled: DocumentNode; plain: DocumentNode } {
  const route = routes.find((row): row is RouteDefinition => row.method === method && row.path === path && row.kind !== 'stream' && row.kind !== 'mounted');
  if (!route) throw new Error(`no row ${method} ${path}`);
  const compiled = checkedOperation(t.app.yoga.getEnveloped({}).schema, route);
  return { compiled, plain: structuredClone(compiled) };
}

/** Executes through the envelope as the shim does (its context factory, its plugins), as JSON. */
async function execute(document: DocumentNode, variableValues: Record<string, unknown>, apiKey: string | undefined): Promise<unknown> {
  const enveloped = t.app.yoga.getEnveloped({ credentials: { apiKey, requestId: `compiled-${++requests}`, origin: t.url } });
  const contextValue = (await enveloped.contextFactory()) as Context;
  const result = (await enveloped.execute({ schema: enveloped.schema, document, variableValues, contextValue })) as ExecutionResult;
  // What the shim reads of an error besides its JSON: the error it wraps (its kind and status).
  const errors = result.errors?.map((error) => ({ ...error.toJSON(), original: error.originalError?.name, originalStatus: (error.originalError as { status?: number } | undefined)?.status }));
  return JSON.parse(JSON.stringify({ ...result, errors }));
}

async function bothWays(method: string, path: string, variables: Record<string, unknown>, key: string | undefined) {
  const { compiled, plain } = documents(method, path);
  return { compiled: await execute(compiled, variables, key), plain: await execute(plain, variables, key) };
}

describe('compiled execution of the shim documents', () => {
  it('reads lists as graphql-js does: sub-keys, media, bounties, community search, the rate', async () => {
    const account = await t.createAccount('compiled');
    for (const label of ['one', 'two']) {
      const created = await t.request('POST', '/api/platform/sub-keys', { key: account.key, body: { label, scopes: 'media' } });
      expect(created.status, created.text).toBe(201);
    }
    const cases: Array<[string, string, Record<string, unknown>, string | undefined]> = [
      ['GET', '/api/platform/sub-keys', { first: 10 }, account.key],
      ['GET', '/api/platform/sub-keys', { first: 1 }, account.key],
      ['GET', '/api/media/list', { limit: 50 }, account.key],
      ['GET', '/api/economy/bounties', { limit: 5 }, account.key],
      ['GET', '/api/community/search', { limit: 5, tag: 'harbour' }, undefined],
      ['GET', '/api/economy/bridge/rate', {}, account.key],
    ];
    for (const [method, path, variables, key] of cases) {
      const { compiled, plain } = await bothWays(method, path, variables, key);
      expect(compiled, `${method} ${path}`).toEqual(plain);
      expect((compiled as { data?: unknown }).data, `${method} ${path}`).toBeTruthy();
    }
  });

  it('refuses as graphql-js does: a missing scope, a refusal in the resolver, a variable it cannot coerce', async () => {
    const account = await t.createAccount('compiled-refused');
    const sub = await t.request('POST', '/api/platform/sub-keys', { key: account.key, body: { label: 'media only', scopes: 'media' } });
    expect(sub.status, sub.text).toBe(201);
    const subKey = sub.body.sub_key as string;
    const cases: Array<[string, string, Record<string, unknown>, string | undefined]> = [
      // The sub-key lacks the economy scope: scope-auth refuses the field.
      ['POST', '/api/economy/bridge/convert', { coins: 1 }, subKey],
      // No coins: the service refuses inside the resolver (402).
      ['POST', '/api/economy/bridge/convert', { coins: 5, idempotencyKey: 'compiled-refused' }, account.key],
      // Not a number: GraphQL refuses the variable before any field runs.
      ['POST', '/api/economy/bridge/convert', { coins: 'many' }, account.key],
      ['GET', '/api/platform/sub-keys', { first: 'ten' }, account.key],
      // No key at all.
      ['GET', '/api/platform/sub-keys', { first: 1 }, undefined],
    ];
    for (const [method, path, variables, key] of cases) {
      const { compiled, plain } = await bothWays(method, path, variables, key);
      expect(compiled, `${method} ${path} ${JSON.stringify(variables)}`).toEqual(plain);
    }
  });

  it('moves money once and answers as graphql-js does: a conversion, then its replay by the other executor', async () => {
    const account = await t.createAccount('compiled-money');
    const granted = await t.request('POST', `/api/admin/accounts/${account.handle}/coins`, { admin: true, body: { amount: 10 } });
    expect(granted.status, granted.text).toBe(200);
    const { compiled, plain } = documents('POST', '/api/economy/bridge/convert');
    const variables = { coins: 2, idempotencyKey: 'compiled-once' };
    const first = (await execute(compiled, variables, account.key)) as { data: { convertCoins: { data: Record<string, unknown> } } };
    const replay = (await execute(plain, variables, account.key)) as { data: { convertCoins: { data: Record<string, unknown> } } };
    expect(first.data.convertCoins.data).toMatchObject({ coinsBurned: 2, newBalance: 8, replayed: false, status: 'completed' });
    expect(replay.data.convertCoins.data).toEqual({ ...first.data.convertCoins.data, replayed: true });
  });
});
