// How service errors look on the wire in GraphQL: message kept, status and code in extensions.
import { GraphQLError } from 'graphql';
import { AppError, ErrorCode, InvalidInput, Unavailable } from '../platform/errors.js';
import { DATABASE_UNAVAILABLE_MESSAGE, isDatabaseUnavailable } from '../platform/database/unavailable.js';
import { CURSOR_EXPECTED } from './connection-cursor.js';
import { currentRequestId, type Logger } from '../platform/logger.js';

export function toGraphQLError(error: AppError, from?: GraphQLError): GraphQLError {
  return new GraphQLError(error.message, {
    nodes: from?.nodes,
    path: from?.path,
    originalError: error,
    extensions: {
      code: error.code,
      // Yoga strips `http` from what it sends; `status` stays for GraphQL clients.
      status: error.status,
      ...(error.field ? { field: error.field } : {}),
      http: { status: error.status, ...(error.headers ? { headers: error.headers } : {}) },
    },
  });
}

/**
 * Checks the name, not the class: graphql 16 ships a CJS and an ESM build, and an error made by one
 * fails `instanceof` against the other (seen under Vitest, where sources get the ESM build).
 */
export function isGraphQLError(value: unknown): value is GraphQLError {
  return value instanceof Error && value.name === 'GraphQLError';
}

/** Pothos's words for a bad connection argument, turned into ours, naming the argument. */
function connectionArgumentError(message: string): InvalidInput {
  if (/^(Invalid cursor|Cursor must be)/.test(message)) return new InvalidInput(`after: ${CURSOR_EXPECTED}`, 'after');
  const argument = /^Argument (\w+) (.*)$/.exec(message);
  return argument ? new InvalidInput(`${argument[1]}: ${argument[2]}`, argument[1]) : new InvalidInput(message);
}

/** Yoga's maskError: our errors pass through, anything unexpected is logged and hidden. */
export function makeMaskError(logger: Logger) {
  return (error: unknown, message: string): Error => {
    const original = isGraphQLError(error) ? error.originalError : error;
    if (original instanceof AppError) return toGraphQLError(original, isGraphQLError(error) ? error : undefined);
    // Pothos refuses bad connection arguments (negative first, a malformed cursor): the caller's mistake.
    if (original instanceof Error && original.name === 'PothosValidationError') {
      return toGraphQLError(connectionArgumentError(original.message), isGraphQLError(error) ? error : undefined);
    }
    if (isGraphQLError(error) && (!original || isGraphQLError(original))) return isGraphQLError(original) ? original : error;
    if (isDatabaseUnavailable(original)) {
      logger.warn({ err: original }, 'database unavailable');
      return toGraphQLError(new Unavailable(DATABASE_UNAVAILABLE_MESSAGE), isGraphQLError(error) ? error : undefined);
    }
    const requestId = currentRequestId();
    logger.error({ err: original }, 'unexpected error in GraphQL operation');
    return new GraphQLError(`${message} (request id ${requestId ?? 'unknown'})`, {
      extensions: { code: ErrorCode.InternalServerError, http: { status: 500 }, requestId },
    });
  };
}
