// How service errors look on the wire in GraphQL: message kept, status and code in extensions.
import { GraphQLError } from 'graphql';
import { AppError } from '../platform/errors.js';
import { currentRequestId, type Logger } from '../platform/logger.js';

export function toGraphQLError(error: AppError, from?: GraphQLError): GraphQLError {
  return new GraphQLError(error.message, {
    nodes: from?.nodes,
    path: from?.path,
    originalError: error,
    extensions: {
      code: error.code,
      ...(error.field ? { field: error.field } : {}),
      http: { status: error.status, ...(error.headers ? { headers: error.headers } : {}) },
    },
  });
}

/** Yoga's maskError: our errors pass through, anything unexpected is logged and hidden. */
export function makeMaskError(logger: Logger) {
  return (error: unknown, message: string): Error => {
    const original = error instanceof GraphQLError ? error.originalError : error;
    if (original instanceof AppError) return toGraphQLError(original, error instanceof GraphQLError ? error : undefined);
    if (error instanceof GraphQLError && (!original || original instanceof GraphQLError)) return original instanceof GraphQLError ? original : error;
    const requestId = currentRequestId();
    logger.error({ err: original }, 'unexpected error in GraphQL operation');
    return new GraphQLError(`${message} (request id ${requestId ?? 'unknown'})`, {
      extensions: { code: 'INTERNAL_SERVER_ERROR', http: { status: 500 }, requestId },
    });
  };
}
