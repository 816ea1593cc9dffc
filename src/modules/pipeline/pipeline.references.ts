// References between steps: a param value `$<step>.<field>` (dot paths and array indexes:
// `$scrape1.urls[0]`, `$s.images.0.url`) is the value of a field of an earlier step's output.
// - A string that is one reference and nothing else becomes the referenced value with its own type
//   (an array stays an array, a number a number).
// - References inside longer text are replaced by the value as text (numbers and strings as they
//   are, arrays and objects as JSON): "a poster of $search1.query". The path takes every `.field`
//   that follows, so where text goes on with a dot or a letter, brace it: "${s.count}.jpg".
// - `$$` is a literal `$`; a `$` not followed by `<name>.<field>` (or `{<name>.<field>}`) is left as it is.
// Before anything runs, every reference is checked against the steps before it and the JSON Schema
// of their action's declared outputs (checkReference); at run time resolve() reads the value.
import { InvalidInput } from '../../platform/errors.js';

export type Segment = string | number;

export interface Reference {
  /** As written: `$scrape1.urls[0]`. */
  text: string;
  step: string;
  path: Segment[];
}

/** Where a reference sits in a step's params, and whether it is the whole string there. */
export interface FoundReference {
  /** Path of the value inside params: ['urls', 0]. */
  at: Segment[];
  reference: Reference;
  whole: boolean;
}

export const STEP_NAME = /^[A-Za-z][A-Za-z0-9_]{0,39}$/;
const STEP = '[A-Za-z][A-Za-z0-9_]{0,39}';
const PATH = '(?:\\.[A-Za-z_][A-Za-z0-9_]*|\\.\\d{1,6}|\\[\\d{1,6}\\])+';
const WHOLE = new RegExp(`^\\$(?:\\{(${STEP})(${PATH})\\}|(${STEP})(${PATH}))$`);
const EMBEDDED = () => new RegExp(`\\$\\$|\\$\\{(${STEP})(${PATH})\\}|\\$(${STEP})(${PATH})`, 'g');
const SEGMENT = /\.([A-Za-z_][A-Za-z0-9_]*)|\.(\d+)|\[(\d+)\]/g;

function parsePath(text: string): Segment[] {
  return [...text.matchAll(SEGMENT)].map((m) => (m[1] !== undefined ? m[1] : Number(m[2] ?? m[3])));
}

/** The references in one string: the whole string, or those inside it. */
export function referencesIn(value: string): { whole: Reference | null; embedded: Reference[] } {
  const whole = WHOLE.exec(value);
  if (whole) return { whole: { text: value, step: (whole[1] ?? whole[3])!, path: parsePath((whole[2] ?? whole[4])!) }, embedded: [] };
  const embedded: Reference[] = [];
  for (const m of value.matchAll(EMBEDDED())) {
    const step = m[1] ?? m[3];
    if (step !== undefined) embedded.push({ text: m[0], step, path: parsePath((m[2] ?? m[4])!) });
  }
  return { whole: null, embedded };
}

/** How deep params may nest (deeper JSON is no one's real input, and would only cost stack). */
export const MAX_PARAM_DEPTH = 16;

/** Every reference anywhere in a step's params (inside arrays and objects too). */
export function findReferences(value: unknown, at: Segment[] = []): FoundReference[] {
  if (at.length > MAX_PARAM_DEPTH) throw new InvalidInput(`${pathText(at.slice(0, 3))}: params nest more than ${MAX_PARAM_DEPTH} levels deep`);
  if (typeof value === 'string') {
    const { whole, embedded } = referencesIn(value);
    if (whole) return [{ at, reference: whole, whole: true }];
    return embedded.map((reference) => ({ at, reference, whole: false }));
  }
  if (Array.isArray(value)) return value.flatMap((item, i) => findReferences(item, [...at, i]));
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([key, item]) => findReferences(item, [...at, key]));
  return [];
}

export function pathText(path: readonly Segment[]): string {
  return path.map((s, i) => (typeof s === 'number' ? `[${s}]` : i === 0 ? s : `.${s}`)).join('');
}

// ---- The check before anything runs, against JSON Schema (z.toJSONSchema of the outputs) ----

export type JsonSchema = Record<string, unknown>;

/** The alternatives of a schema (anyOf/oneOf of a nullable or a union), or the schema itself. */
function alternatives(schema: JsonSchema): JsonSchema[] {
  const list = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  return list ? list.flatMap(alternatives) : [schema];
}

/** The JSON types a schema allows; empty when it allows anything. */
export function typesOf(schema: JsonSchema): Set<string> {
  const types = new Set<string>();
  for (const alt of alternatives(schema)) {
    if (alt.type === undefined) {
      if (alt.const !== undefined) types.add(alt.const === null ? 'null' : typeof alt.const === 'number' ? 'number' : typeof alt.const);
      else if (Array.isArray(alt.enum)) for (const v of alt.enum) types.add(typeof v === 'number' ? 'number' : typeof v);
      else return new Set();
    } else for (const t of [alt.type].flat() as string[]) types.add(t);
  }
  return types;
}

function describeTypes(types: Set<string>): string {
  const names = [...types].filter((t) => t !== 'null').map((t) => (t === 'array' ? 'an array' : t === 'object' ? 'an object' : t === 'integer' ? 'an integer' : `a ${t}`));
  return names.length ? names.join(' or ') : 'null';
}

/**
 * The schema found at `path` inside `schema`, or why there is none: a field the object does not
 * declare, an index into something that is not an array. Unknown shapes ({}) allow any path.
 */
export function schemaAt(schema: JsonSchema, path: readonly Segment[]): { schema: JsonSchema } | { problem: string } {
  let current = schema;
  for (let i = 0; i < path.length; i++) {
    const segment = path[i]!;
    const where = pathText(path.slice(0, i)) || 'the output';
    const options = alternatives(current).filter((alt) => alt.type !== 'null');
    if (options.some((alt) => alt.type === undefined && alt.const === undefined && alt.enum === undefined)) return { schema: {} };
    if (typeof segment === 'number') {
      const list = options.find((alt) => alt.type === 'array');
      if (!list) return { problem: `${where} is ${describeTypes(typesOf(current))}, not an array` };
      current = (list.items as JsonSchema | undefined) ?? {};
      continue;
    }
    const objects = options.filter((alt) => alt.type === 'object');
    if (objects.length === 0) return { problem: `${where} is ${describeTypes(typesOf(current))}, which has no fields` };
    const holder = objects.find((alt) => (alt.properties as Record<string, JsonSchema> | undefined)?.[segment] !== undefined);
    if (holder) {
      current = (holder.properties as Record<string, JsonSchema>)[segment]!;
      continue;
    }
    const open = objects.find((alt) => alt.additionalProperties !== false && alt.additionalProperties !== undefined);
    if (open) {
      current = typeof open.additionalProperties === 'object' ? (open.additionalProperties as JsonSchema) : {};
      continue;
    }
    const fields = objects.flatMap((alt) => Object.keys((alt.properties as object | undefined) ?? {}));
    return { problem: `${i === 0 ? 'it has' : `${where} has`} no field ${segment} (${i === 0 ? 'its outputs' : 'its fields'}: ${fields.join(', ') || 'none'})` };
  }
  return { schema: current };
}

export interface StepSignature {
  name: string;
  action: string;
  /** JSON Schema of the action's declared outputs. */
  outputs: JsonSchema;
}

/**
 * Throws the 400 for a reference that cannot work: no such step, a step that has not run yet (or
 * this one), a field its action does not declare, or (a whole-string reference) a value of a type
 * the param does not take. `field` names the param in the message (`steps.2.params.urls`).
 */
export function checkReference(found: FoundReference, steps: readonly StepSignature[], index: number, paramSchema: JsonSchema | null, field: string): void {
  const { reference } = found;
  const target = steps.findIndex((s) => s.name === reference.step);
  const refuse = (why: string) => {
    throw new InvalidInput(`${field}: ${reference.text} ${why}`, field);
  };
  if (target === -1) refuse(`refers to no step named ${reference.step} (the steps are: ${steps.map((s) => s.name).join(', ')})`);
  if (target === index) refuse('refers to this step itself; a step can only use the outputs of the steps before it');
  if (target > index) refuse(`refers to step ${reference.step}, which runs after this one (steps.${target}); a step can only use the outputs of the steps before it`);
  const step = steps[target]!;
  const found_ = schemaAt(step.outputs, reference.path);
  if ('problem' in found_) return refuse(`cannot be read: ${step.action} step ${step.name}: ${found_.problem}`);
  if (!found.whole || !paramSchema) return;
  const wanted = typesOf(paramSchema);
  const given = typesOf(found_.schema);
  if (wanted.size === 0 || given.size === 0) return;
  const fits = [...given].some((t) => wanted.has(t) || (t === 'integer' && wanted.has('number')) || (t === 'number' && wanted.has('integer')) || t === 'null');
  if (!fits) refuse(`is ${describeTypes(given)}, but this param takes ${describeTypes(wanted)}`);
}

// ---- Run time ----

/** A reference that cannot be resolved when its step runs: the step fails with this message. */
export class Unresolved extends Error {}

export interface StepOutcome {
  status: 'ok' | 'failed' | 'skipped';
  output: unknown;
}

function read(reference: Reference, outcomes: ReadonlyMap<string, StepOutcome>): unknown {
  const outcome = outcomes.get(reference.step);
  if (!outcome || outcome.status !== 'ok') {
    throw new Unresolved(`${reference.text}: step ${reference.step} ${outcome ? `was ${outcome.status}` : 'did not run'}, so it has no output`);
  }
  let value: unknown = outcome.output;
  for (let i = 0; i < reference.path.length; i++) {
    const segment = reference.path[i]!;
    const next =
      typeof segment === 'number'
        ? Array.isArray(value) && segment < value.length
          ? value[segment]
          : undefined
        : value !== null && typeof value === 'object' && !Array.isArray(value) && Object.hasOwn(value, segment)
          ? (value as Record<string, unknown>)[segment]
          : undefined;
    if (next === undefined || next === null) {
      const where = pathText(reference.path.slice(0, i + 1));
      const why = typeof segment === 'number' && Array.isArray(value) ? `the list has ${value.length} item${value.length === 1 ? '' : 's'}` : 'there is no value there';
      throw new Unresolved(`${reference.text} resolves to nothing: ${where} of step ${reference.step} (${why})`);
    }
    value = next;
  }
  return value;
}

const asText = (value: unknown) => (typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : JSON.stringify(value));

/** The params with every reference replaced by its value; throws Unresolved when one has none. */
export function resolve(value: unknown, outcomes: ReadonlyMap<string, StepOutcome>): unknown {
  if (typeof value === 'string') {
    const { whole, embedded } = referencesIn(value);
    if (whole) return read(whole, outcomes);
    if (embedded.length === 0 && !value.includes('$$')) return value;
    return value.replace(EMBEDDED(), (match, braced?: string, bracedPath?: string, step?: string, path?: string) => {
      const name = braced ?? step;
      return name === undefined ? '$' : asText(read({ text: match, step: name, path: parsePath((bracedPath ?? path)!) }, outcomes));
    });
  }
  if (Array.isArray(value)) return value.map((item) => resolve(item, outcomes));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, resolve(item, outcomes)]));
  return value;
}
