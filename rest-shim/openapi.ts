// The OpenAPI 3.1 document of the REST API, made from the route table: each row's zod schemas
// (request, response) become JSON Schema through zod's own z.toJSONSchema (draft 2020-12, the
// dialect of OpenAPI 3.1), its auth becomes the security requirement, and the failures it can
// answer follow from its auth and inputs plus the ones the row names. Schemas named with
// `.meta({ id })` (MediaItem, Schedule ...) become components. Served at GET /openapi.json.
import { z } from 'zod';
import type { AnyRoute, ErrorStatus, RawResponse, ResponseSchema, RouteRequest } from './route.js';
import { ANY_KEY, keyRuleName } from '../src/modules/access/index.js';

type Json = Record<string, unknown>;

export interface OpenApiInfo {
  title: string;
  version: string;
  description?: string;
}

/** The error envelope every JSON failure answers. */
export const errorEnvelope = z
  .object({ success: z.literal(false), error: z.string().describe('what went wrong, naming the field when one is at fault') })
  .meta({ id: 'Error', description: 'A failed call: `success` false and a message' });

const GENERIC_ERRORS: Record<ErrorStatus, string> = {
  400: 'A missing or malformed field (the message names it), or malformed JSON',
  401: 'Missing or invalid credentials',
  402: 'Too few coins or credits (INSUFFICIENT_COINS, INSUFFICIENT_CREDITS)',
  403: 'Not allowed',
  404: 'No such object, or it belongs to another account',
  409: 'Conflicts with the current state',
  413: 'The request body is over the limit',
  416: 'The Range is not satisfiable',
  429: 'Quota exceeded',
  500: 'Unexpected failure: no details; the log line carries the same X-Request-Id as the response',
  502: 'An upstream provider failed',
  503: 'Temporarily unavailable',
};

/** Tags by path, first match wins; a path matching none is tagged by its first segment after /api/. */
const TAGS: Array<[RegExp, string]> = [
  [/^\/(healthz|readyz|metrics|openapi\.json|docs)\b/, 'Service'],
  [/^\/api\/platform\//, 'Platform: sub-keys'],
  [/^\/api\/(scrape|jobs|featured-image)\b|^\/(files|download)\//, 'Scraping'],
  [/^\/api\/media\/collections\b|^\/gallery\//, 'Media: collections'],
  [/^\/api\/media\/stock\/|^\/api\/community\/lists\//, 'Media: stock lists'],
  [/^\/api\/media\/:id\/optimize$|^\/media\/:id\/t\/|^\/api\/watermark$|^\/watermarks\//, 'Transformations and watermarks'],
  [/^\/api\/media\/|^\/media\//, 'Media library'],
  [/^\/api\/(vision|ocr)\b/, 'Vision'],
  [/^\/api\/automation\//, 'Automation'],
  [/^\/api\/(search-links|live-editor)\b/, 'Search links and live editor'],
  [/^\/api\/admin\//, 'Admin'],
];

/** Express path syntax to OpenAPI's: `/api/jobs/:job_id` -> `/api/jobs/{job_id}`. */
export function openApiPath(path: string): string {
  return path.replace(/:(\w+)/g, '{$1}');
}

export function buildOpenApiDocument(table: AnyRoute[], info: OpenApiInfo): Json {
  const schemas: Record<string, Json> = {};
  const convert = (schema: z.ZodType, io: 'input' | 'output') => toJsonSchema(schema, io, schemas);
  convert(errorEnvelope, 'output');

  const paths: Record<string, Record<string, Json>> = {};
  const operationIds = new Set<string>();
  for (const route of table) {
    const path = openApiPath(route.path);
    const method = route.method.toLowerCase();
    const operationId = operationIdOf(route);
    if (operationIds.has(operationId) || paths[path]?.[method]) throw new Error(`the route table has ${route.method} ${route.path} twice`);
    operationIds.add(operationId);
    (paths[path] ??= {})[method] = {
      operationId,
      summary: route.summary,
      ...(route.description ? { description: route.description } : {}),
      tags: [tagOf(route.path)],
      security: securityOf(route),
      ...(route.auth === 'key' && route.key ? { 'x-scope': keyRuleName(route.key) } : {}),
      ...parametersOf(route.request, convert),
      ...requestBodyOf(route, convert),
      responses: responsesOf(route, convert),
    };
  }

  return {
    openapi: '3.1.0',
    info: { title: info.title, version: info.version, ...(info.description ? { description: info.description } : {}) },
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    tags: [...new Set(table.map((route) => tagOf(route.path)))].map((name) => ({ name })),
    paths,
    components: {
      schemas: Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b))),
      securitySchemes: {
        apiKey: {
          type: 'apiKey',
          in: 'header',
          name: 'X-API-Key',
          description:
            "An account's master key or a sub-key (the JSON body field `api_key` works too). A route needs one scope (`scrape`, `generate`, `search`, `media`), the master key (`master`) or any valid key (`any`): the operation's `x-scope` and its security requirement name it. The master key has every scope.",
        },
        adminToken: { type: 'apiKey', in: 'header', name: 'X-Admin-Token', description: "The operator's admin token (ADMIN_TOKEN)" },
        adminBearer: { type: 'http', scheme: 'bearer', description: 'The admin token as Authorization: Bearer <token>' },
      },
      headers: {
        'Retry-After': { description: 'Seconds until the exhausted window ends (absent for a used-up sub-key credit, which never resets)', schema: { type: 'integer' } },
        'RateLimit-Limit': { description: 'Requests allowed in the tightest window', schema: { type: 'integer' } },
        'RateLimit-Remaining': { description: 'Requests left in the tightest window', schema: { type: 'integer' } },
        'RateLimit-Reset': { description: 'Seconds until the tightest window resets', schema: { type: 'integer' } },
      },
    },
  };
}

/** zod to JSON Schema; named schemas go to components (one name, one schema), refs point there. */
function toJsonSchema(schema: z.ZodType, io: 'input' | 'output', components: Record<string, Json>): Json {
  const result = z.toJSONSchema(schema, { target: 'draft-2020-12', io, override: tidy }) as Json;
  const { $schema: _dialect, $defs, ...rest } = result;
  for (const [name, definition] of Object.entries(($defs ?? {}) as Record<string, Json>)) {
    const moved = pointRefsToComponents(definition);
    if (components[name] && JSON.stringify(components[name]) !== JSON.stringify(moved)) throw new Error(`two different schemas are named ${name}`);
    components[name] = moved;
  }
  return pointRefsToComponents(rest);
}

function pointRefsToComponents(schema: Json): Json {
  return JSON.parse(JSON.stringify(schema).replaceAll('"#/$defs/', '"#/components/schemas/')) as Json;
}

/** Drops what says nothing to a reader: the safe-integer bounds of every integer, the regex of ISO times. */
function tidy({ jsonSchema }: { jsonSchema: Json }): void {
  if (jsonSchema.type === 'integer') {
    if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum;
    if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
  }
  if (jsonSchema.format === 'date-time') delete jsonSchema.pattern;
}

function operationIdOf(route: AnyRoute): string {
  const words = route.path
    .split('/')
    .filter((segment) => segment && segment !== 'api')
    .flatMap((segment) => (segment.startsWith(':') ? ['by', ...segment.slice(1).split('_')] : segment.split(/[-_.]/)));
  return route.method.toLowerCase() + words.map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('');
}

function tagOf(path: string): string {
  const found = TAGS.find(([pattern]) => pattern.test(path));
  if (found) return found[1];
  const segment = /^\/api\/([^/]+)/.exec(path)?.[1] ?? path.split('/')[1] ?? 'other';
  return segment.charAt(0).toUpperCase() + segment.slice(1);
}

function securityOf(route: AnyRoute): Array<Record<string, string[]>> {
  if (route.auth === 'none') return [];
  if (route.auth === 'admin') return [{ adminToken: [] }, { adminBearer: [] }];
  return [{ apiKey: route.key ? [keyRuleName(route.key)] : [] }];
}

type Convert = (schema: z.ZodType, io: 'input' | 'output') => Json;

function parametersOf(request: RouteRequest | undefined, convert: Convert): Json {
  const parameters: Json[] = [];
  for (const where of ['path', 'query'] as const) {
    const schema = where === 'path' ? request?.params : request?.query;
    if (!schema) continue;
    const json = convert(schema, 'input');
    const required = new Set((json.required ?? []) as string[]);
    for (const [name, property] of Object.entries((json.properties ?? {}) as Record<string, Json>)) {
      const { description, ...rest } = property;
      parameters.push({ name, in: where, required: where === 'path' || required.has(name), ...(description ? { description } : {}), schema: rest });
    }
  }
  return parameters.length ? { parameters } : {};
}

function requestBodyOf(route: AnyRoute, convert: Convert): Json {
  const { body, form } = route.request ?? {};
  if (!body && !form) return {};
  const content: Json = {};
  let required = false;
  for (const [type, schema] of [
    ['application/json', body],
    [route.multipart ? 'multipart/form-data' : 'application/x-www-form-urlencoded', form],
  ] as const) {
    if (!schema) continue;
    const json = convert(schema, 'input');
    required ||= ((json.required ?? []) as string[]).length > 0;
    content[type] = { schema: json, ...(schema === form ? jsonFieldsEncoding(json) : {}) };
  }
  return { requestBody: { required, content } };
}

/** A form field holding a list or an object is sent as JSON text (rest-shim/input.ts reads it so). */
function jsonFieldsEncoding(json: Json): Json {
  const properties = (json.properties ?? {}) as Record<string, Json>;
  const structured = Object.keys(properties).filter((name) => properties[name]!.type === 'array' || properties[name]!.type === 'object');
  return structured.length ? { encoding: Object.fromEntries(structured.map((name) => [name, { contentType: 'application/json' }])) } : {};
}

function responsesOf(route: AnyRoute, convert: Convert): Json {
  const responses: Record<string, Json> = {};
  const keyed = route.auth === 'key';
  const rateHeaders = keyed ? Object.fromEntries(['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'].map((h) => [h, { $ref: `#/components/headers/${h}` }])) : undefined;

  if (route.kind !== 'stream' && route.response) {
    const alwaysTrue = route.kind === 'mounted' || !route.failure;
    responses[String(route.successStatus ?? 200)] = {
      description: route.summary,
      ...(rateHeaders ? { headers: rateHeaders } : {}),
      content: { 'application/json': { schema: convert(enveloped(route.response, alwaysTrue), 'output') } },
    };
  }
  const raw: RawResponse[] = route.kind === 'stream' || route.kind === 'mounted' ? (route.produces ?? []) : [];
  for (const answer of raw) responses[String(answer.status)] = rawResponse(answer);

  for (const [status, description] of Object.entries(errorsOf(route))) {
    if (responses[status]) continue;
    responses[status] = {
      description,
      ...(status === '429' ? { headers: { 'Retry-After': { $ref: '#/components/headers/Retry-After' } } } : {}),
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    };
  }
  return responses;
}

/** `success` first, then the documented fields; `success` is true unless the row says it may be false. */
function enveloped(response: ResponseSchema, alwaysTrue: boolean): z.ZodType {
  const success = alwaysTrue ? z.literal(true) : z.boolean().describe('false when the answer reports a failure (see the description)');
  // Every `success: false` carries `error` (a route's own error field, when it has one, says more).
  const error = z.string().optional().describe('why, when success is false');
  const wrap = (object: z.ZodObject) => z.object({ success, ...(alwaysTrue || 'error' in object.shape ? {} : { error }), ...object.shape });
  return response instanceof z.ZodObject ? wrap(response) : z.union(response.options.map(wrap));
}

function rawResponse(answer: RawResponse): Json {
  const content = answer.contentTypes?.length
    ? Object.fromEntries(answer.contentTypes.map((type) => [type, { schema: type === 'application/json' ? { type: 'object' } : type.startsWith('text/') ? { type: 'string' } : { type: 'string', format: 'binary' } }]))
    : undefined;
  const headers = answer.headers ? Object.fromEntries(Object.entries(answer.headers).map(([name, description]) => [name, { description, schema: { type: 'string' } }])) : undefined;
  return { description: answer.description, ...(headers ? { headers } : {}), ...(content ? { content } : {}) };
}

/** The JSON failures of a route: implied by its auth and inputs, then the row's own (which win). */
export function errorsOf(route: AnyRoute): Partial<Record<ErrorStatus, string>> {
  const implied: Partial<Record<ErrorStatus, string>> = {};
  if (route.kind !== 'mounted') {
    const { params, query, body, form } = route.request ?? {};
    if (params || query || body || form) implied[400] = GENERIC_ERRORS[400];
    if (route.auth === 'key') {
      implied[401] = 'Missing, unknown, revoked, rotated or expired API key';
      const key = route.key ?? ANY_KEY;
      implied[403] =
        'master' in key
          ? 'Account inactive or suspended, or a sub-key where the master key is needed'
          : 'scope' in key
            ? `Account inactive or suspended, or a sub-key without the '${key.scope}' scope`
            : 'Account inactive or suspended';
    }
    if (route.auth === 'admin') implied[401] = 'Missing or wrong admin token';
    if (params && route.auth !== 'none') implied[404] = GENERIC_ERRORS[404];
    if (body) implied[413] = 'The JSON body is over BODY_LIMIT';
    if (form && route.multipart) implied[413] = 'A file is over UPLOAD_MAX_BYTES';
    if (route.auth === 'key') implied[429] = 'Quota exceeded: daily or per-minute requests of the account, or the sub-key\'s credit_limit';
    implied[500] = GENERIC_ERRORS[500];
  }
  const all = { ...implied, ...route.errors };
  return Object.fromEntries(Object.entries(all).sort(([a], [b]) => Number(a) - Number(b)));
}
