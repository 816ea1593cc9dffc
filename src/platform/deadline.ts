// A promise bounded in time: a dependency that hangs (Redis, the database, a bucket) becomes an
// error naming it, instead of a caller that waits for ever.

/** The promise, or a rejection naming `what` once `ms` have passed; its late rejection is not left unhandled. */
export function withDeadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms)));
  promise.catch(() => {});
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
