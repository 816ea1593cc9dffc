// What a production GraphQL endpoint does not tell strangers: no introspection (the schema is
// published as schema.graphql and /openapi.json for those who need it), and no "Did you mean ...?"
// in any error, including enum values, which graphql-armor's field-suggestion block leaves in.
import { GraphQLError, NoSchemaIntrospectionCustomRule } from 'graphql';
import type { Plugin } from 'graphql-yoga';

const SUGGESTION = /\s*Did you mean [^?]*\?/g;

function withoutSuggestion<E extends Error>(error: E): E | GraphQLError {
  const message = error.message.replace(SUGGESTION, '');
  if (message === error.message) return error;
  const original = error instanceof GraphQLError ? error : undefined;
  return new GraphQLError(message, { nodes: original?.nodes, path: original?.path, originalError: original?.originalError, extensions: original?.extensions });
}

export function useProductionSecrecy(): Plugin {
  return {
    onValidate: ({ addValidationRule }) => {
      addValidationRule(NoSchemaIntrospectionCustomRule);
      return ({ result, setResult }) => {
        if (result.length > 0) setResult(result.map(withoutSuggestion));
      };
    },
    onExecute: () => ({
      onExecuteDone: ({ result, setResult }) => {
        if (Symbol.asyncIterator in result || !result.errors?.length) return;
        setResult({ ...result, errors: result.errors.map(withoutSuggestion) });
      },
    }),
    // Variable values are checked before the execution hooks run: the answer is scrubbed last.
    onResultProcess: ({ result, setResult }) => {
      if (Array.isArray(result) || Symbol.asyncIterator in result) return;
      const errors = (result as { errors?: readonly Error[] }).errors;
      if (errors?.length) setResult({ ...result, errors: errors.map(withoutSuggestion) } as typeof result);
    },
  };
}
