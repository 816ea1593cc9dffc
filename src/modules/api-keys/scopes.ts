// Sub-key scopes (spec "Platform"): which parts of the API a sub-key may call.
// The mapping of scopes to endpoints is ours (the spec leaves it open) and is written down in the
// scope table of docs/rest-api.md "Sub-key scopes"; each GraphQL field declares the scope it needs,
// and every REST route runs a GraphQL operation, so one check covers both. Master keys have every scope plus `account`.
export const SUB_KEY_SCOPES = ['scrape', 'generate', 'search', 'media'] as const;
export type SubKeyScope = (typeof SUB_KEY_SCOPES)[number];

export function isSubKeyScope(value: string): value is SubKeyScope {
  return (SUB_KEY_SCOPES as readonly string[]).includes(value);
}

