// Text the database cannot store (a NUL character, an unpaired surrogate) is refused with a 400
// before an operation runs, wherever it comes in: a variable or a string written in the query.
// Without this, it reached PostgreSQL and came back as a 500.
import { Kind, visit, type DocumentNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { InvalidInput } from '../platform/errors.js';
import { findUnstorableText, refuseUnstorableText } from '../platform/validation.js';
import { toGraphQLError } from './errors.js';

export function useStorableText(): Plugin {
  // A parsed document never changes, and the same ones come again (the shim's, yoga's parse cache):
  // each is walked once.
  const literalsStorable = new WeakMap<DocumentNode, boolean>();
  const check = (document: DocumentNode, variables: unknown): InvalidInput | null => {
    try {
      refuseUnstorableText(variables);
    } catch (error) {
      return error as InvalidInput;
    }
    let storable = literalsStorable.get(document);
    if (storable === undefined) {
      storable = true;
      visit(document, {
        [Kind.STRING]: (node) => {
          if (findUnstorableText(node.value) !== null) storable = false;
        },
      });
      literalsStorable.set(document, storable);
    }
    return storable ? null : new InvalidInput('a string in the query holds a NUL character or an unpaired surrogate, which cannot be stored');
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
