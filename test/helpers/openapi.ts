// Checks of real requests and answers against the served OpenAPI document (GET /openapi.json): its
// JSON Schemas run as they are, through Ajv's draft 2020-12 validator (the dialect of OpenAPI 3.1).
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import formatsPlugin from 'ajv-formats';
import type { AnyRoute } from '../../rest-shim/route.js';
import { openApiPath } from '../../rest-shim/openapi.js';

// ajv-formats is CommonJS: its function is the default export's `default` under NodeNext.
const addFormats = ((formatsPlugin as unknown as { default?: typeof formatsPlugin }).default ?? formatsPlugin) as unknown as (ajv: Ajv2020) => void;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type OpenApiDocument = any;

interface Parameter {
  name: string;
  in: 'path' | 'query';
  required: boolean;
  schema: object;
}

/** A JSON pointer segment (`/` and `~` escaped). */
const pointer = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

export function openApiChecker(document: OpenApiDocument) {
  const make = (coerceTypes: boolean) => {
    const ajv = new Ajv2020({ strict: true, allErrors: true, coerceTypes, strictRequired: false });
    addFormats(ajv);
    ajv.addFormat('binary', true);
    // The document's own keywords around its schemas, known to Ajv so that strict mode passes them.
    ajv.addVocabulary(['openapi', 'info', 'jsonSchemaDialect', 'tags', 'paths', 'components', 'servers']);
    ajv.addSchema(document, 'openapi');
    return ajv;
  };
  const ajv = make(false);
  const coercing = make(true);
  const compiled = new Map<string, ValidateFunction>();
  const validator = (at: string, coerce = false) => {
    const key = `${coerce}:${at}`;
    let validate = compiled.get(key);
    if (!validate) {
      validate = (coerce ? coercing : ajv).compile({ $ref: `openapi#${at}` });
      compiled.set(key, validate);
    }
    return validate;
  };
  const problems = (validate: ValidateFunction, value: unknown) => (validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message} ${JSON.stringify(e.params)}`));

  const operationAt = (route: Pick<AnyRoute, 'method' | 'path'>) => `/paths/${pointer(openApiPath(route.path))}/${route.method.toLowerCase()}`;
  const operation = (route: Pick<AnyRoute, 'method' | 'path'>) => document.paths?.[openApiPath(route.path)]?.[route.method.toLowerCase()];

  return {
    operation,
    /** Why a JSON answer does not fit the documented one for its status (empty when it does). */
    response(route: AnyRoute, status: number, body: unknown): string[] {
      const answer = operation(route)?.responses?.[String(status)];
      if (!answer) return [`status ${status} is not documented for ${route.method} ${route.path}`];
      if (!answer.content?.['application/json']?.schema) return [`status ${status} of ${route.method} ${route.path} documents no JSON body`];
      return problems(validator(`${operationAt(route)}/responses/${status}/content/application~1json/schema`), body);
    },
    /** The documented properties of the answer's schema, in order (of the union branch the body fits). */
    propertyOrder(route: AnyRoute, status: number, body: unknown): string[] {
      type Schema = { $ref?: string; properties?: object; anyOf?: object[]; oneOf?: object[] };
      const resolve = (schema: Schema): Schema => (schema.$ref ? resolve(document.components.schemas[schema.$ref.split('/').pop()!]) : schema);
      const schema = resolve(operation(route).responses[String(status)].content['application/json'].schema);
      const branches = (schema.anyOf ?? schema.oneOf) as Array<{ properties?: object }> | undefined;
      if (!branches) return Object.keys(schema.properties ?? {});
      const base = `${operationAt(route)}/responses/${status}/content/application~1json/schema/${schema.anyOf ? 'anyOf' : 'oneOf'}`;
      const fitting = branches.findIndex((_b, i) => problems(validator(`${base}/${i}`), body).length === 0);
      return Object.keys(branches[fitting]?.properties ?? {});
    },
    /** Content types documented for a non-JSON answer of this status. */
    contentTypes(route: AnyRoute, status: number): string[] {
      return Object.keys(operation(route)?.responses?.[String(status)]?.content ?? {});
    },
    /** Why a call's path and query values, as sent (text), do not fit the documented parameters. */
    parameters(route: AnyRoute, params: Record<string, string> = {}, query: Record<string, string> = {}): string[] {
      const declared = (operation(route)?.parameters ?? []) as Parameter[];
      const out: string[] = [];
      for (const [where, values] of [['path', params], ['query', query]] as const) {
        for (const name of Object.keys(values)) if (!declared.some((p) => p.in === where && p.name === name)) out.push(`${where} parameter ${name} is not documented`);
      }
      declared.forEach((parameter, i) => {
        const value = (parameter.in === 'path' ? params : query)[parameter.name];
        if (value === undefined) {
          if (parameter.required) out.push(`required ${parameter.in} parameter ${parameter.name} was not sent`);
          return;
        }
        // Values arrive as text: coerced to the documented type first, as the shim reads them.
        const holder = { value };
        const check = coercing.compile({ type: 'object', properties: { value: { $ref: `openapi#${operationAt(route)}/parameters/${i}/schema` } } });
        if (!check(holder)) out.push(`${parameter.in} parameter ${parameter.name}=${value}: ${(check.errors ?? []).map((e) => e.message).join('; ')}`);
      });
      return out;
    },
    /** Why a JSON body does not fit the documented one. */
    jsonBody(route: AnyRoute, body: unknown): string[] {
      if (!operation(route)?.requestBody?.content?.['application/json']) return [`${route.method} ${route.path} documents no JSON body`];
      return problems(validator(`${operationAt(route)}/requestBody/content/application~1json/schema`), body);
    },
    /** Why form fields (their names) do not fit the documented form. */
    formFields(route: AnyRoute, names: string[]): string[] {
      const content = operation(route)?.requestBody?.content ?? {};
      const schema = content['multipart/form-data']?.schema ?? content['application/x-www-form-urlencoded']?.schema;
      if (!schema) return [`${route.method} ${route.path} documents no form`];
      const known = Object.keys(schema.properties ?? {});
      return [
        ...names.filter((n) => !known.includes(n)).map((n) => `form field ${n} is not documented`),
        ...((schema.required ?? []) as string[]).filter((n) => !names.includes(n)).map((n) => `required form field ${n} was not sent`),
      ];
    },
    /** Compiles every schema of the document in strict mode: throws on one Ajv cannot read. */
    compileAll(): number {
      const places: string[] = [];
      for (const [path, methods] of Object.entries(document.paths as Record<string, Record<string, { requestBody?: { content: object }; responses: Record<string, { content?: object }>; parameters?: unknown[] }>>)) {
        for (const [method, op] of Object.entries(methods)) {
          const at = `/paths/${pointer(path)}/${method}`;
          for (const type of Object.keys(op.requestBody?.content ?? {})) places.push(`${at}/requestBody/content/${pointer(type)}/schema`);
          for (const [status, answer] of Object.entries(op.responses)) {
            for (const type of Object.keys(answer.content ?? {})) places.push(`${at}/responses/${status}/content/${pointer(type)}/schema`);
          }
          (op.parameters ?? []).forEach((_p, i) => places.push(`${at}/parameters/${i}/schema`));
        }
      }
      for (const place of places) validator(place);
      return places.length;
    },
  };
}
