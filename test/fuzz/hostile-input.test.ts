// Property-based fuzzing of every REST route (from the route table) and every GraphQL root field
// (from the schema) with hostile values: wrong types, huge numbers, NUL characters and unpaired
// surrogates, deep and long arrays, unknown fields, bad ids; and on every route and root field, a
// body or variables nested 100,000 levels deep and non-finite numbers (NaN, Infinity, -Infinity,
// 1e400 as JSON text and as query text). Whatever arrives, the answer is not a 5xx (but a 503 the
// route documents, such as POST /api/generate with no provider configured); a refusal is the JSON
// envelope, a 400 names the field it is about, and every `success: false` carries `error`. The
// service stays up.
//
// `npm test` runs the seeds fixed below (printed), so it is the same run every time. A longer run
// draws new seeds when asked: `npm run fuzz` (FUZZ_SEED=random, FUZZ_RUNS=50), or FUZZ_SEED=<seed>
// (or a comma-separated list) to replay one; FUZZ_RUNS=<n> is the runs per seed, route and root field.
import fc from 'fast-check';
import { getNamedType, isInputObjectType, isListType, isNonNullType, isObjectType, isScalarType, isEnumType, type GraphQLField, type GraphQLInputType, type GraphQLSchema } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import type { DocumentNode, OperationDefinitionNode } from 'graphql';
import { routes } from '../../rest-shim/routes.js';
import type { AnyRoute } from '../../rest-shim/route.js';
import { ADMIN_TOKEN, startTestApp, type TestApp } from '../helpers/app.js';
import { testTelegramConfig } from '../fixtures/telegram/fake-bot-api.js';

/** The seeds `npm test` runs (1982263317 once found the documented 503 of POST /api/generate). */
const FIXED_SEEDS = [1982263317, 20261127];
const SEEDS = seedsFrom(process.env.FUZZ_SEED);
/** Runs per seed: the fixed seeds' budget in `npm test` is about a minute per database. */
const RUNS = Number(process.env.FUZZ_RUNS ?? 3);
/** Time for one route's runs (or one root field's, times the fields) at this many runs. */
const ROUTE_TIMEOUT_MS = 30_000 + SEEDS.length * RUNS * 2_000;

function seedsFrom(setting: string | undefined): number[] {
  if (!setting) return FIXED_SEEDS;
  if (setting === 'random') return [Math.floor(Math.random() * 2 ** 31)];
  const seeds = setting.split(',').map((text) => Number(text.trim()));
  if (seeds.some((seed) => !Number.isInteger(seed))) throw new Error(`FUZZ_SEED: expected random, a seed or seeds separated by commas, not ${setting}`);
  return seeds;
}

/** Runs the property once per seed. */
async function onEverySeed<T>(property: fc.IAsyncPropertyWithHooks<T>): Promise<void> {
  for (const seed of SEEDS) await fc.assert(property, { seed, numRuns: RUNS, endOnFailure: true });
}

let t: TestApp;
beforeAll(async () => {
  console.error(`hostile-input fuzz: seeds ${SEEDS.join(', ')}, ${RUNS} runs each (replay with FUZZ_SEED=${SEEDS.join(',')}; new seeds: npm run fuzz)`);
  // The chat bot configured but taking no updates: its link route answers instead of 503 (not configured).
  t = await startTestApp({ telegram: testTelegramConfig() });
});
afterAll(() => t?.stop());

// ---- hostile values ----------------------------------------------------------------------------

const nested = (depth: number): unknown => (depth === 0 ? 'bottom' : [nested(depth - 1)]);

/** Non-finite numbers as query and form text, and as JSON values arrive (the last three are not JSON at all). */
const NON_FINITE_TEXT = ['NaN', 'Infinity', '-Infinity', '1e400', '-1e400'];
const NON_FINITE_JSON = ['1e400', '-1e400', 'NaN', 'Infinity', '-Infinity'];
/** Depth of the deep bodies and variables: about 200 KB of brackets. */
const DEEP_LEVELS = 100_000;
const deepJson = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;

/**
 * JSON text that JSON.stringify cannot write (100,000 levels, 1e400, NaN): a placeholder string in
 * the value, replaced in the text by `json`.
 */
const RAW = '\u0001raw:';
const raw = (text: string) => `${RAW}${text}`;
const RAW_PATTERN = /"\\u0001raw:((?:[^"\\]|\\.)*)"/g;
function json(value: unknown): string {
  return (JSON.stringify(value) ?? 'null').replace(RAW_PATTERN, (_match, text: string) => JSON.parse(`"${text}"`) as string);
}
const DEEP = raw(deepJson(DEEP_LEVELS));
/**
 * The values every field of a route (or every argument of a root field) gets in turn, one request
 * each: 1e400 and -1e400 (Infinity once parsed), their text forms spread over the fields, and a
 * body that is not JSON because of a bare NaN.
 */
const nonFiniteJson = (): unknown[][] => [[raw('1e400')], [raw('-1e400')], ['NaN', 'Infinity', '-Infinity', '1e400'], [raw('NaN')]];
const hostileRaw = fc.constantFrom(DEEP, ...NON_FINITE_JSON.map(raw));

const hostileText = fc.oneof(
  fc.constantFrom('\u0000', 'a\u0000b', '\ud800', 'x\udfffy', '', ' ', '-1', '0', '2147483648', '99999999999999999999', '1e309', 'true', 'null'),
  fc.constantFrom(...NON_FINITE_TEXT),
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
    hostileRaw,
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

/** `documented503`: the route documents a 503 (no provider configured, say), a right answer here. */
function checkAnswer(what: string, answer: Answer, fields: string[] = [], documented503 = false): void {
  if (!(documented503 && answer.status === 503)) expect(answer.status, `${what}: ${JSON.stringify(answer.body)?.slice(0, 300)}`).toBeLessThan(500);
  if (!answer.type.includes('json') || !answer.body || typeof answer.body !== 'object') return;
  const body = answer.body as { success?: unknown; error?: unknown; errors?: unknown };
  if (body.errors) return; // GraphQL's own envelope (checked by the GraphQL properties)
  // A refusal, and any answer that reports a failure (a failed job, a failed pipeline), says why.
  if (answer.status >= 400 || body.success === false) expect(body, what).toMatchObject({ success: false, error: expect.any(String) });
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
  it.each(table.map((route) => [`${route.method} ${route.path}`, route] as const))(
    '%s answers no 5xx and names the field of a 400',
    async (_name, route: AnyRoute) => {
      const account = await t.createAccount('fuzz');
      const headers: Record<string, string> = route.auth === 'admin' ? { 'X-Admin-Token': ADMIN_TOKEN } : route.auth === 'key' ? { 'X-API-Key': account.key } : {};
      const params = route.path.split('/').filter((segment) => segment.startsWith(':'));
      const request = route.request ?? {};
      const queryNames = fieldNames(request.query);
      const bodyNames = [...fieldNames(request.body), ...fieldNames(request.form)];
      const hasBody = route.method !== 'GET' && route.method !== 'DELETE';
      const documented503 = route.errors?.[503] !== undefined;
      const check = async (path: string, body: unknown, fields: string[]) => {
        const text = body === undefined ? undefined : json(body);
        checkAnswer(`${route.method} ${path.slice(0, 300)} ${text?.slice(0, 200) ?? ''}`, await send(route.method, path, headers, text), fields, documented503);
      };
      await onEverySeed(
        fc.asyncProperty(
          fc.tuple(...params.map(() => hostileSegment)),
          queryOf(queryNames),
          hasBody ? fc.oneof({ weight: 5, arbitrary: objectOf(bodyNames) }, { weight: 1, arbitrary: hostileValue }) : fc.constant(undefined),
          async (segments, query, body) => {
            let path = route.path;
            params.forEach((param, i) => (path = path.replace(param, segments[i]!)));
            if (query) path += `?${query}`;
            const sent = [...new URLSearchParams(query).keys()].map((key) => key.replace(/\[.*$/, ''));
            const fields = [...params.map((p) => p.slice(1)), ...sent, ...queryNames, ...bodyNames, ...(body && typeof body === 'object' && !Array.isArray(body) ? Object.keys(body) : [])];
            await check(path, body, fields);
          },
        ),
      );

      // On every route, whatever the seeds draw: a body nested 100,000 levels deep, and each
      // non-finite number in every field it reads, as JSON and as query text.
      const path = params.reduce((p, param) => p.replace(param, '1'), route.path);
      const fields = [...params.map((p) => p.slice(1)), ...queryNames, ...bodyNames, 'value'];
      const names = bodyNames.length ? bodyNames : ['value'];
      if (hasBody) {
        await check(path, { [names[0]!]: DEEP }, fields);
        for (const values of nonFiniteJson()) await check(path, Object.fromEntries(names.map((name, i) => [name, values[i % values.length]])), fields);
      }
      if (queryNames.length) {
        for (const shift of [0, 2]) await check(`${path}?${new URLSearchParams(queryNames.map((name, i) => [name, NON_FINITE_TEXT[(i + shift) % NON_FINITE_TEXT.length]!]))}`, undefined, fields);
        // As deep as a URL can carry (a query value that is a JSON array's text is parsed as one).
        await check(`${path}?${new URLSearchParams(queryNames.map((name) => [name, deepJson(2_000)]))}`.slice(0, 8_000), undefined, fields);
      }
    },
    ROUTE_TIMEOUT_MS,
  );
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
  if (isScalarType(named) && named.name === 'Int') return fc.oneof(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), fc.constantFrom(0, -1, 2 ** 31 - 1, -(2 ** 31)), hostileRaw);
  if (isScalarType(named) && named.name === 'Float') return fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), hostileRaw);
  if (isScalarType(named) && named.name === 'Boolean') return fc.boolean();
  if (isScalarType(named) && (named.name === 'String' || named.name === 'ID')) return hostileText;
  return hostileValue;
}

/** Root fields that REST routes documenting a 503 run (generation with no provider configured ...): a 503 is a right answer there. */
function documented503Fields(): Set<string> {
  const names = new Set<string>();
  for (const route of routes) {
    if (route.errors?.[503] === undefined || !('operation' in route)) continue;
    const definition = (route.operation as DocumentNode).definitions.find((d): d is OperationDefinitionNode => d.kind === 'OperationDefinition');
    for (const selection of definition?.selectionSet.selections ?? []) if (selection.kind === 'Field') names.add(selection.name.value);
  }
  return names;
}

describe('every GraphQL root field, with hostile arguments', () => {
  it('answers no 5xx and no internal error, whatever each root field is given', async () => {
    const fields = rootFields();
    expect(fields.length).toBeGreaterThan(40);
    const unavailableOk = documented503Fields();
    expect(unavailableOk).toContain('generateImages');
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
      const check = async (variables: Record<string, unknown>) => {
        const answer = await send('POST', '/graphql', headers, json({ query: document, variables }));
        const what = `${document} ${json(variables).slice(0, 300)}`;
        const documented503 = unavailableOk.has(field.name);
        checkAnswer(what, answer, [], documented503);
        const errors = (answer.body as { errors?: Array<{ message: string; extensions?: { code?: string; status?: number } }> }).errors ?? [];
        for (const error of errors) {
          expect(error.extensions?.code, `${what}: ${error.message}`).not.toBe('INTERNAL_SERVER_ERROR');
          if (documented503 && error.extensions?.code === 'UNAVAILABLE') continue;
          expect(error.extensions?.status ?? 400, `${what}: ${error.message}`).toBeLessThan(500);
        }
      };
      await onEverySeed(
        fc.asyncProperty(fc.tuple(...field.args.map((arg) => variable(arg.type))), async (values) => {
          await check(Object.fromEntries(field.args.map((arg, i) => [arg.name, values[i]])));
        }),
      );
      // Whatever the seeds draw: variables nested 100,000 levels deep, and each non-finite number in every argument.
      if (field.args.length) {
        await check(Object.fromEntries(field.args.map((arg) => [arg.name, DEEP])));
        // The JSON that parses (1e400 is Infinity once parsed, and the text forms); NaN and Infinity as bare JSON are malformed bodies, drawn by the seeds.
        for (const values of nonFiniteJson().slice(0, 3)) await check(Object.fromEntries(field.args.map((arg, i) => [arg.name, values[i % values.length]])));
      }
    }
  }, ROUTE_TIMEOUT_MS * 8);

  it('is still up and answering afterwards', async () => {
    expect((await send('GET', '/healthz', {})).status).toBe(200);
    expect((await t.request('GET', '/api/media/list', { key: t.ownerKey })).status).toBe(200);
  });
});
