// Unwraps `Success | ServiceError` union results of the errors plugin.
import { AppError, type ErrorCode } from '../src/platform/errors.js';

interface ErrorMember {
  __typename: 'ServiceError';
  message: string;
  status: number;
  /** An AppError's code (src/platform/errors.ts ErrorCode). */
  code: ErrorCode;
  field: string | null;
}

/** Returns the success member's data, or throws the ServiceError as the AppError it was. */
export function unwrap<T>(result: { __typename: 'ServiceError' } | { __typename: string; data: T }): T {
  if (result.__typename === 'ServiceError') {
    const e = result as unknown as ErrorMember;
    throw new AppError(e.message, e.status, e.code, e.field ?? undefined);
  }
  return (result as { data: T }).data;
}
