// Typed service errors. Each carries the HTTP status the REST shim answers with and a stable code;
// GraphQL exposes them as the ServiceError member of mutation results or as errors whose
// extensions carry `http.status`.
export class AppError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string,
    /** The input field the message is about, when there is one. */
    readonly field?: string,
    /** Extra response headers (Retry-After, RateLimit-*). */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class InvalidInput extends AppError {
  constructor(message: string, field?: string) {
    super(message, 400, 'INVALID_INPUT', field);
  }
}

export class Unauthenticated extends AppError {
  constructor(message: string) {
    super(message, 401, 'UNAUTHENTICATED');
  }
}

export class Forbidden extends AppError {
  constructor(message: string) {
    super(message, 403, 'FORBIDDEN');
  }
}

export class NotFound extends AppError {
  constructor(message: string) {
    super(message, 404, 'NOT_FOUND');
  }
}

export class Conflict extends AppError {
  constructor(message: string, field?: string) {
    super(message, 409, 'CONFLICT', field);
  }
}

export class PayloadTooLarge extends AppError {
  constructor(message: string) {
    super(message, 413, 'PAYLOAD_TOO_LARGE');
  }
}

export class QuotaExceeded extends AppError {
  constructor(message: string, headers: Record<string, string>) {
    super(message, 429, 'QUOTA_EXCEEDED', undefined, headers);
  }
}

export class Unavailable extends AppError {
  constructor(message: string) {
    super(message, 503, 'UNAVAILABLE');
  }
}
