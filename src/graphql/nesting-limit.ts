// Input nested deeper than MAX_NESTING_DEPTH is refused with a 400 before GraphQL walks it: the
// document from its text before the parser (a recursive descent) sees it, the variables and
// extensions before coercion (recursive too) does, wherever the request came from: HTTP JSON (whose
// raw body src/http/app.ts has already scanned), GET, multipart, graphql-ws (which calls
// refuseDeepOperation itself: yoga's onParams does not run there).
import type { Plugin } from 'graphql-yoga';
import type { GraphQLError } from 'graphql';
import { graphqlNestsTooDeep, tooDeeplyNested, valueNestsTooDeep } from '../platform/validation.js';
import { toGraphQLError } from './errors.js';

export function useNestingLimit(): Plugin {
  return {
    onParams: ({ params, setResult }) => {
      const refused = refuseDeepOperation(params);
      if (refused) setResult({ errors: [refused] });
    },
    onParse: ({ params }) => {
      const source = typeof params.source === 'string' ? params.source : params.source.body;
      if (graphqlNestsTooDeep(source)) throw toGraphQLError(tooDeeplyNested('query'));
    },
  };
}

/** The error for an operation whose variables or extensions nest too deep, or null. */
export function refuseDeepOperation(params: { variables?: unknown; extensions?: unknown }): GraphQLError | null {
  if (valueNestsTooDeep(params.variables)) return toGraphQLError(tooDeeplyNested('variables'));
  if (valueNestsTooDeep(params.extensions)) return toGraphQLError(tooDeeplyNested('extensions'));
  return null;
}
