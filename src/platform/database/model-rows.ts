// A model's rows read on the driver, in the shape Prisma's client gives them (the model's scalar
// fields in schema order, DateTime as Date, BigInt as bigint). For the hottest reads: Prisma 6
// compiles every call again in WebAssembly, 13-25% of a list's CPU (bench/RESULTS.md), where the
// driver sends the text.
import { getDatamodel } from '../../generated/pothos-prisma-types.js';
import type { Prisma, PrismaClient } from '../../generated/prisma/client.js';

/** Field types whose driver value (node-pg's and PGlite's) is already Prisma's. */
const AS_IS = new Set(['Int', 'String', 'Boolean', 'Float']);

export interface ModelRows<T> {
  /** The SELECT list: every scalar column, quoted, answered under its field's name. */
  columns: string;
  /** A driver row of `columns` as Prisma would have answered it. */
  row(raw: Record<string, unknown>): T;
}

/**
 * Column names (`@map`) are in the client's runtime data model only (the Pothos datamodel names
 * fields, not columns): the generated client keeps it on every instance, the same for all of them.
 */
interface RuntimeDataModel {
  models: Record<string, { fields: Array<{ name: string; dbName?: string | null }>; dbName: string | null }>;
}

const made = new Map<string, ModelRows<unknown>>();

export function modelRows<T>(prisma: PrismaClient, model: Prisma.ModelName): ModelRows<T> {
  const known = made.get(model);
  if (known) return known as ModelRows<T>;
  const fields = getDatamodel().datamodel.models[model]?.fields.filter((f) => f.kind === 'scalar' || f.kind === 'enum');
  const runtime = (prisma as unknown as { _runtimeDataModel?: RuntimeDataModel })._runtimeDataModel?.models[model];
  if (!fields || !runtime) throw new Error(`no model ${model} in the Prisma schema`);
  if (runtime.dbName) throw new Error(`${model}: a table mapped to another name (@@map) is not read on the driver yet`);
  const columnOf = new Map(runtime.fields.map((f) => [f.name, f.dbName ?? f.name]));
  const dates: string[] = [];
  const bigints: string[] = [];
  const columns = fields.map((f) => {
    const column = `"${columnOf.get(f.name) ?? f.name}"`;
    const as = `"${f.name}"`;
    if (f.type === 'DateTime' && !f.isList) {
      dates.push(f.name);
      // timestamp(3) without time zone holds UTC (Prisma's convention); epoch milliseconds are exact in a float8.
      return `(extract(epoch from ${column}) * 1000)::float8 AS ${as}`;
    }
    if (f.type === 'BigInt' && !f.isList) {
      bigints.push(f.name);
      // As text: node-pg answers int8 as a string and PGlite as a number, which loses digits past 2^53.
      return `${column}::text AS ${as}`;
    }
    // A list of an enum comes from node-pg as its array text, unparsed: not as is.
    if ((f.kind === 'enum' && !f.isList) || AS_IS.has(f.type)) return column === as ? column : `${column} AS ${as}`;
    throw new Error(`${model}.${f.name}: a ${f.type}${f.isList ? '[]' : ''} is not read on the driver yet (its Prisma value differs from the driver's)`);
  });
  const rows: ModelRows<T> = {
    columns: columns.join(', '),
    row: (raw) => {
      for (const name of dates) {
        const ms = raw[name];
        if (ms !== null && ms !== undefined) raw[name] = new Date(Number(ms));
      }
      for (const name of bigints) {
        const text = raw[name];
        if (text !== null && text !== undefined) raw[name] = BigInt(text as string);
      }
      return raw as T;
    },
  };
  made.set(model, rows as ModelRows<unknown>);
  return rows;
}
