// Compiled execution (graphql-jit) of fixed operations: the REST shim's documents are ours, fixed
// and validated once, so each is compiled once into a function that walks its selection without
// graphql-js's per-request planning (collecting fields, looking up resolvers, building each field's
// info, completing values by type). Only documents marked here are compiled; every other operation
// (GraphQL over HTTP and WebSocket, subscriptions) runs on graphql-js as before.
//
// The envelope stays the same: the context, the other plugins' onExecute hooks (request budget,
// storable text, masking, production secrecy) wrap the compiled function as they wrap graphql-js's
// execute, and the schema's resolvers (Pothos' scope checks, errors plugin, Prisma selections) are
// the ones graphql-js would call. Where graphql-jit cannot compile a document, or a request fails before
// any field runs (a variable it cannot coerce: graphql-jit words those errors its own way), the
// document runs on graphql-js, so the caller sees graphql-js's answer, word for word.
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import { GraphQLError, Kind, type DocumentNode, type ExecutionResult, type FieldNode, type GraphQLSchema, type SelectionSetNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';

const marked = new WeakSet<DocumentNode>();

/** Marks a fixed document (validated against the schema by its owner) to be executed compiled. */
export function executeCompiled(document: DocumentNode): DocumentNode {
  marked.add(document);
  return document;
}

/** Runs marked documents through graphql-jit, each compiled on its first execution per schema. */
export function useCompiledExecution(): Plugin {
  const compiled = new WeakMap<GraphQLSchema, WeakMap<DocumentNode, CompiledQuery | null>>();
  const compiledFor = (schema: GraphQLSchema, document: DocumentNode, operationName: string | undefined): CompiledQuery | null => {
    let bySchema = compiled.get(schema);
    if (!bySchema) compiled.set(schema, (bySchema = new WeakMap()));
    let query = bySchema.get(document);
    if (query === undefined) {
      const made = compileQuery(schema, document, operationName);
      query = isCompiledQuery(made) ? made : null;
      bySchema.set(document, query);
    }
    return query;
  };
  return {
    onExecute: ({ args, executeFn, setExecuteFn }) => {
      if (!marked.has(args.document)) return;
      const query = compiledFor(args.schema, args.document, args.operationName ?? undefined);
      if (!query) return;
      setExecuteFn(async (run) => {
        const result = (await query.query(run.rootValue, run.contextValue, run.variableValues)) as ExecutionResult;
        // No field ran (the variables were refused): graphql-js's own words for the refusal.
        if (result.data === undefined && result.errors?.every((error) => error.path === undefined)) return executeFn(run);
        return result.errors?.length ? { ...result, errors: result.errors.map((error) => located(error, run.document)) } : result;
      });
    },
  };
}

/**
 * A field's error as graphql-js makes it (locatedError): graphql-jit's own error object carries the
 * field's locations but not its nodes, source and positions, which the error masking copies
 * (src/graphql/errors.ts), so a copy would lose the locations.
 */
function located(error: GraphQLError, document: DocumentNode): GraphQLError {
  if (error.nodes?.length || !error.path) return error;
  const field = fieldAt(document, error.path);
  if (!field?.loc) return error;
  return new GraphQLError(error.message, { nodes: [field], path: error.path, originalError: error.originalError, extensions: error.extensions });
}

/** The field a response path names, through inline fragments and fragment spreads (list indexes skipped). */
function fieldAt(document: DocumentNode, path: ReadonlyArray<string | number>): FieldNode | undefined {
  const operation = document.definitions.find((definition) => definition.kind === Kind.OPERATION_DEFINITION);
  if (!operation) return undefined;
  const fragments = new Map(document.definitions.flatMap((definition) => (definition.kind === Kind.FRAGMENT_DEFINITION ? [[definition.name.value, definition] as const] : [])));
  const find = (selections: SelectionSetNode | undefined, key: string): FieldNode | undefined => {
    for (const selection of selections?.selections ?? []) {
      if (selection.kind === Kind.FIELD && (selection.alias ?? selection.name).value === key) return selection;
      const inner = selection.kind === Kind.INLINE_FRAGMENT ? selection.selectionSet : selection.kind === Kind.FRAGMENT_SPREAD ? fragments.get(selection.name.value)?.selectionSet : undefined;
      const found = inner && find(inner, key);
      if (found) return found;
    }
    return undefined;
  };
  let field: FieldNode | undefined;
  let selections: SelectionSetNode | undefined = operation.selectionSet;
  for (const key of path) {
    if (typeof key === 'number') continue;
    field = find(selections, key);
    if (!field) return undefined;
    selections = field.selectionSet;
  }
  return field;
}
