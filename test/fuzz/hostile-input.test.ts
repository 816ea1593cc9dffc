// Property-based fuzzing of every REST route (from the route table) and every GraphQL root field
// (from the schema) with hostile values: wrong types, huge numbers, NUL characters and unpaired
// surrogates, deep and long arrays, unknown fields, bad ids. Whatever arrives, the answer is not a
// 5xx; a refusal is the JSON envelope, and a 400 names the field it is about. The service stays up.
//
// The seed is printed; FUZZ_SEED=<seed> replays a run, FUZZ_RUNS=<n> changes the runs per route and
// per root field (default 6: the suite's budget in `npm test` is about a minute per database).
import fc from 'fast-check';
import { getNamedType, isInputObjectType, isListType, isNonNullType, isObjectType, isScalarType, isEnumType, type GraphQLField, type GraphQLInputType, type GraphQLSchema } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { routes } from '../../rest-shim/routes.js';
import type { AnyRoute } from '../../rest-shim/route.js';
import { ADMIN_TOKEN, startTestApp, type TestApp } from '../helpers/app.js';
import { testTelegramConfig } from '../fixtures/telegram/fake-bot-api.js';

const SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const RUNS = Number(process.env.FUZZ_RUNS ?? 6);

let t: TestApp;
beforeAll(async () => {
  console.error(`hostile-input fuzz: seed ${SEED}, ${RUNS} runs each (replay with FUZZ_SEED=${SEED})`);
  // The chat bot configured but taking no updates: its link route answers instead of 503 (not configured).
  t = await startTestApp({ telegram: testTelegramConfig() });
});
afterAll(() => t?.stop());

// ---- hostile values ----------------------------------------------------------------------------

const nested = (depth: number): unknown => (depth === 0 ? 'bottom' : [nested(depth - 1)]);

const hostileText = fc.oneof(
  fc.constantFrom('\u0000', 'a\u0000b', '\ud800', 'x\udfffy', '', ' ', '-1', '0', '2147483648', '99999999999999999999', '1e309', 'NaN', 'true', 'null'),
  fc.constantFrom('../../etc/passwd', '%00', "' OR 1=1 --", '<script>x</script>', 'http://169.254.169.254/latest/meta-data/', 'file:///etc/passwd', '{"$ne":null}', '[]'),
  fc.constant('x'.repeat(100_000)),
  fc.string({ maxLength: 30, unit: 'binary' }),
);

const hostileNumber = fc.oneof(
  fc.constantFrom(2 ** 31, -(2 ** 31) - 1, 2 ** 53, -(2 ** 53), Number.MAX_SAFE_INTEGER + 2, 1e308, -1e308, 0.5, -0, 1e-300, 0, -1),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

const { value: hostileValue } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    hostileText,
    hostileNumber,
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.string({ maxLength: 8 }), tie('value'), { maxKeys: 4 }),
    fc.integer({ min: 50, max: 2000 }).map(nested),
    fc.constant(Array.from({ length: 10_000 }, (_, i) => i)),
  ),
}));

/** Path segments, already URL-encoded: bad ids, encodings a decoder chokes on, well-formed text. */
const hostileSegment = fc.oneof(
  fc.constantFrom('0', '-1', '1.5', '2147483648', '99999999999999999999', 'abc', '%00', '%ED%A0%80', '%FF', '%', '..', '%2e%2e', 'x'.repeat(5000)),
  fc.string({ minLength: 1, maxLength: 20 }).map(encodeURIComponent),
);

/** Names a route reads (from its request schemas) and one it has never heard of. */
function fieldNames(schema: z.ZodObject | undefined): string[] {
  return schema ? Object.keys(schema.shape) : [];
}

function objectOf(names: string[]): fc.Arbitrary<Record<string, unknown>> {
  const keys = [...names, 'unknown_field', '__proto__', 'constructor'];
  return fc.subarray(keys, { minLength: 1 }).chain((chosen) => fc.tuple(...chosen.map(() => hostileValue)).map((values) => Object.fromEntries(chosen.map((k, i) => [k, values[i]]))));
}

/** A query string: the route's names and others, with text values, repeated keys and bracket keys. */
function queryOf(names: string[]): fc.Arbitrary<string> {
  const keys = [...names, 'unknown', 'limit[0]', 'limit[x]', 'api_key'];
  const text = hostileText.filter((s) => (s as string & { isWellFormed(): boolean }).isWellFormed());
  return fc.array(fc.tuple(fc.constantFrom(...keys), text), { maxLength: 6 }).map((pairs) => new URLSearchParams(pairs).toString());
}

// ---- what every refusal must look like ---------------------------------------------------------

interface Answer {
  status: number;
  type: string;
  body: unknown;
}

/**
 * A 400 names what it is about: a field the request sent or the route reads (`limit: ...`,
 * `tags.2: ...`, `url is required ...`, `image_data or image_file is required`), the path, or the
 * body as a whole when it is malformed.
 */
function namesAField(message: string, fields: string[]): boolean {
  if (/^(malformed|request body|path: )/i.test(message)) return true;
  return fields.some((field) => message.startsWith(field) && /^($|[.:[ ,])/.test(message.slice(field.length)));
}

function checkAnswer(what: string, answer: Answer, fields: string[] = []): void {
  expect(answer.status, `${what}: ${JSON.stringify(answer.body)?.slice(0, 300)}`).toBeLessThan(500);
  if (answer.status < 400 || !answer.type.includes('json')) return;
  const body = answer.body as { success?: unknown; error?: unknown; errors?: unknown };
  if (body.errors) return; // GraphQL's own envelope (checked by the GraphQL properties)
  expect(body, what).toMatchObject({ success: false, error: expect.any(String) });
  if (answer.status === 400) expect(namesAField(body.error as string, fields), `${what}: 400 "${body.error as string}" names no field`).toBe(true);
}

async function send(method: string, path: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  const res = await fetch(t.url + path, { method, headers: { ...headers, ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}) }, body, redirect: 'manual' });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: a page or a file
  }
  return { status: res.status, type: res.headers.get('content-type') ?? '', body: parsed };
}

// ---- REST --------------------------------------------------------------------------------------

describe('every REST route, with hostile input', () => {
  const table = routes.filter((route) => route.method !== 'GET' || route.path !== '/healthz');
  it.each(table.map((route) => [`${route.method} ${route.path}`, route] as const))('%s answers no 5xx and names the field of a 400', async (_name, route: AnyRoute) => {
    const account = await t.createAccount('fuzz');
    const headers: Record<string, string> = route.auth === 'admin' ? { 'X-Admin-Token': ADMIN_TOKEN } : route.auth === 'key' ? { 'X-API-Key': account.key } : {};
    const params = route.path.split('/').filter((segment) => segment.startsWith(':'));
    const request = route.request ?? {};
    const bodyNames = [...fieldNames(request.body), ...fieldNames(request.form)];
    const hasBody = route.method !== 'GET' && route.method !== 'DELETE';
    await fc.assert(
      fc.asyncProperty(
        fc.tuple(...params.map(() => hostileSegment)),
        queryOf(fieldNames(request.query)),
        hasBody ? fc.oneof({ weight: 5, arbitrary: objectOf(bodyNames).map((o) => JSON.stringify(o)) }, { weight: 1, arbitrary: hostileValue.map((v) => JSON.stringify(v) ?? 'null') }) : fc.constant(undefined),
        async (segments, query, body) => {
          let path = route.path;
          params.forEach((param, i) => (path = path.replace(param, segments[i]!)));
          if (query) path += `?${query}`;
          const sent = [...new URLSearchParams(query).keys()].map((key) => key.replace(/\[.*$/, ''));
          const parsed: unknown = body === undefined ? undefined : JSON.parse(body);
          const fields = [...params.map((p) => p.slice(1)), ...sent, ...fieldNames(request.query), ...bodyNames, ...(parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? Object.keys(parsed) : [])];
          checkAnswer(`${route.method} ${path} ${body?.slice(0, 200) ?? ''}`, await send(route.method, path, headers, body), fields);
        },
      ),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
  });
});

// ---- GraphQL -----------------------------------------------------------------------------------

interface RootField {
  operation: 'query' | 'mutation';
  field: GraphQLField<unknown, unknown>;
}

function rootFields(): RootField[] {
  const schema = t.app.yoga.getEnveloped({}).schema as GraphQLSchema;
  return [
    ...Object.values(schema.getQueryType()!.getFields()).map((field) => ({ operation: 'query' as const, field })),
    ...Object.values(schema.getMutationType()!.getFields()).map((field) => ({ operation: 'mutation' as const, field })),
  ];
}

/** A value of the argument's own type, made hostile inside (the way a client's variables arrive). */
function valueOf(type: GraphQLInputType, depth = 0): fc.Arbitrary<unknown> {
  if (isNonNullType(type)) return valueOf(type.ofType, depth);
  if (isListType(type)) return fc.oneof(fc.array(valueOf(type.ofType, depth + 1), { maxLength: 5 }), fc.constant(Array.from({ length: 5000 }, () => 1)));
  const named = getNamedType(type);
  if (isInputObjectType(named) && depth < 3) {
    const fields = Object.values(named.getFields());
    return fc.tuple(...fields.map((f) => fc.option(valueOf(f.type, depth + 1), { nil: undefined }))).map((values) => Object.fromEntries(fields.map((f, i) => [f.name, values[i]]).filter(([, v]) => v !== undefined)));
  }
  if (isEnumType(named)) return fc.oneof(fc.constantFrom(...named.getValues().map((v) => v.name)), hostileText);
  if (isScalarType(named) && named.name === 'Int') return fc.oneof(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), fc.constantFrom(0, -1, 2 ** 31 - 1, -(2 ** 31)));
  if (isScalarType(named) && named.name === 'Float') return fc.double({ noNaN: true, noDefaultInfinity: true });
  if (isScalarType(named) && named.name === 'Boolean') return fc.boolean();
  if (isScalarType(named) && (named.name === 'String' || named.name === 'ID')) return hostileText;
  return hostileValue;
}

describe('every GraphQL root field, with hostile arguments', () => {
  it('answers no 5xx and no internal error, whatever each root field is given', async () => {
    const fields = rootFields();
    expect(fields.length).toBeGreaterThan(40);
    for (const { operation, field } of fields) {
      const account = await t.createAccount('fuzz-gql');
      const headers: Record<string, string> = field.name.startsWith('admin') ? { 'X-Admin-Token': ADMIN_TOKEN } : { 'X-API-Key': account.key };
      const declared = field.args.map((arg) => `$${arg.name}: ${String(arg.type)}`).join(', ');
      const passed = field.args.map((arg) => `${arg.name}: $${arg.name}`).join(', ');
      const returns = getNamedType(field.type);
      const selection = isObjectType(returns) || (!isScalarType(returns) && !isEnumType(returns)) ? ' { __typename }' : '';
      const document = `${operation}${declared ? ` (${declared})` : ''} { ${field.name}${passed ? `(${passed})` : ''}${selection} }`;
      // Either the argument's own type with hostile insides, or any hostile value at all.
      const variable = (type: GraphQLInputType) => fc.oneof({ weight: 3, arbitrary: valueOf(type) }, { weight: 1, arbitrary: hostileValue });
      await fc.assert(
        fc.asyncProperty(fc.tuple(...field.args.map((arg) => variable(arg.type))), async (values) => {
          const variables = Object.fromEntries(field.args.map((arg, i) => [arg.name, values[i]]));
          const answer = await send('POST', '/graphql', headers, JSON.stringify({ query: document, variables }));
          const what = `${document} ${JSON.stringify(variables).slice(0, 300)}`;
          checkAnswer(what, answer);
          const errors = ((answer.body as { errors?: Array<{ message: string; extensions?: { code?: string; status?: number } }> }).errors ?? []);
          for (const error of errors) {
            expect(error.extensions?.code, `${what}: ${error.message}`).not.toBe('INTERNAL_SERVER_ERROR');
            expect(error.extensions?.status ?? 400, `${what}: ${error.message}`).toBeLessThan(500);
          }
        }),
        { seed: SEED, numRuns: RUNS, endOnFailure: true },
      );
    }
  });

  it('is still up and answering afterwards', async () => {
    expect((await send('GET', '/healthz', {})).status).toBe(200);
    expect((await t.request('GET', '/api/media/list', { key: t.ownerKey })).status).toBe(200);
  });
});
