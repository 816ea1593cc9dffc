// Text the database cannot store (a NUL character, an unpaired surrogate) is refused with a 400
// before an operation runs, wherever it comes in: a variable or a string written in the query.
// Without this, it reached PostgreSQL and came back as a 500.
import { Kind, visit, type DocumentNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { InvalidInput } from '../platform/errors.js';
import { findUnstorableText, refuseUnstorableText } from '../platform/validation.js';
import { toGraphQLError } from './errors.js';

export function useStorableText(): Plugin {
  const check = (document: DocumentNode, variables: unknown): InvalidInput | null => {
    try {
      refuseUnstorableText(variables);
    } catch (error) {
      return error as InvalidInput;
    }
    let literal: InvalidInput | null = null;
    visit(document, {
      [Kind.STRING]: (node) => {
        if (!literal && findUnstorableText(node.value) !== null) literal = new InvalidInput('a string in the query holds a NUL character or an unpaired surrogate, which cannot be stored');
      },
    });
    return literal;
  };
  return {
    onExecute: ({ args, setResultAndStopExecution }) => {
      const refused = check(args.document, args.variableValues);
      if (refused) setResultAndStopExecution({ errors: [toGraphQLError(refused)] });
    },
    onSubscribe: ({ args, setResultAndStopExecution }) => {
      const refused = check(args.document, args.variableValues);
      if (refused) setResultAndStopExecution({ errors: [toGraphQLError(refused)] });
    },
  };
}
