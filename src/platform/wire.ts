// Building blocks of documented answers on the wire (REST names, integer ids, ISO 8601 UTC times),
// shared by the modules' operation declarations and the REST shim's remaining rows.
import { z } from 'zod';

/** An instant on the wire: ISO 8601 in UTC (`2026-11-22T04:14:52.738Z`). */
export const timestamp = z.iso.datetime();
export const id = z.int().positive();
export const count = z.int().min(0);

/**
 * An account's coins in every answer that shows them (docs/economy.md "Balances"): `balance` is what it may
 * spend now, `held` what pending transfers reserve beside it (balance + held: the posted total).
 */
export const balance = z.number().describe('spendable now (held amounts not included)');
export const held = z.number().describe('held by pending transfers (an escrowed bounty, a conversion waiting for the credit partner), beside balance');

/** An offset page's counts beside its items: how many match, and the page asked for. */
export const pageCounts = { total: count, limit: count, offset: count };

export const nextCursor = z.string().nullable().describe('pass as cursor for the next page; null on the last page');

/**
 * Where a field of a documented answer comes from in the GraphQL result when it is not the camelCase
 * of its REST name: `{ id: 'databaseId', bounty_id: 'bounty.databaseId' }`. The one mapping between
 * the two namings of an answer (rest-shim/derive.ts selects and renames by it). A null source marks a
 * field the declaration's REST `shape` computes; `''` is the result itself (`{ folder: '' }`).
 */
export const graphqlSources = z.registry<{ from: Record<string, string | null>; graphqlType?: string; fragment?: string }>();

/**
 * A documented answer whose fields come from GraphQL fields named otherwise (see graphqlSources);
 * `graphqlType` when the object's document id (`.meta({ id })`) is not its GraphQL type's name;
 * `fragment` when its fragment's name is not `<id>Fields` (one the typed client already exports).
 */
export function answerFrom<T extends z.ZodObject>(schema: T, from: Record<string, string | null>, graphqlType?: string, fragment?: string): T {
  graphqlSources.add(schema, { from, graphqlType, fragment });
  return schema;
}
