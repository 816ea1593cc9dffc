// A model's rows read on the driver, in the shape Prisma's client gives them (the model's scalar
// fields in schema order, DateTime as Date). For the hottest reads: Prisma 6 compiles every call
// again in WebAssembly, 13-25% of a list's CPU (bench/RESULTS.md), where the driver sends the text.
import { getDatamodel } from '../../generated/pothos-prisma-types.js';

// Columns are read by their field names: a model with a field mapped to another column (@map, as
// ApiKey.requestBudget) is not for this (the Pothos datamodel it reads does not carry column names).

/** Field types whose driver value (node-pg's and PGlite's) is already Prisma's. */
const AS_IS = new Set(['Int', 'String', 'Boolean', 'Float']);

export interface ModelRows<T> {
  /** The SELECT list: every scalar column, quoted; a DateTime as UTC epoch milliseconds. */
  columns: string;
  /** A driver row of `columns` as Prisma would have answered it. */
  row(raw: Record<string, unknown>): T;
}

export function modelRows<T>(model: string): ModelRows<T> {
  const fields = getDatamodel().datamodel.models[model]?.fields.filter((f) => f.kind === 'scalar' || f.kind === 'enum');
  if (!fields) throw new Error(`no model ${model} in the Prisma schema`);
  const dates: string[] = [];
  const columns = fields.map((f) => {
    if (f.type === 'DateTime' && !f.isList) {
      dates.push(f.name);
      // timestamp(3) without time zone holds UTC (Prisma's convention); epoch milliseconds are exact in a float8.
      return `(extract(epoch from "${f.name}") * 1000)::float8 AS "${f.name}"`;
    }
    // A list of an enum comes from node-pg as its array text, unparsed: not as is.
    if ((f.kind === 'enum' && !f.isList) || AS_IS.has(f.type)) return `"${f.name}"`;
    throw new Error(`${model}.${f.name}: a ${f.type}${f.isList ? '[]' : ''} is not read on the driver yet (its Prisma value differs from the driver's)`);
  });
  return {
    columns: columns.join(', '),
    row: (raw) => {
      for (const name of dates) {
        const ms = raw[name];
        if (ms !== null && ms !== undefined) raw[name] = new Date(Number(ms));
      }
      return raw as T;
    },
  };
}
