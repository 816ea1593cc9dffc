// Whether an error means the database cannot be reached right now (a restart, a failover, a refused
// or dropped connection): the caller hears 503 "retry shortly", not a 500 that reads as our bug.
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  // PostgreSQL: admin_shutdown, crash_shutdown, cannot_connect_now, and the connection_exception class.
  '57P01',
  '57P02',
  '57P03',
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
  // Prisma: can't reach the server, timed out reaching it, the server closed the connection.
  'P1001',
  'P1002',
  'P1017',
]);

// Some failures reach us as text only: the pg pool's own errors ("Connection terminated", its connect
// timeout) and Prisma's driver-adapter errors, which keep the driver's message but not its code.
const CONNECTION_MESSAGES = /Connection terminated|Query read timeout|timeout exceeded when trying to connect|Client has encountered a connection error|Can't reach database server|the database system is (shutting down|starting up|in recovery mode)|terminating connection due to administrator command|Connection closed/i;

export const DATABASE_UNAVAILABLE_MESSAGE = 'the database is unavailable right now; retry shortly';

export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (!error || typeof error !== 'object' || depth > 5) return false;
  const { code, message, cause, originalError, originalCode } = error as { code?: unknown; message?: unknown; cause?: unknown; originalError?: unknown; originalCode?: unknown };
  if (typeof code === 'string' && CONNECTION_CODES.has(code)) return true;
  if (typeof originalCode === 'string' && CONNECTION_CODES.has(originalCode)) return true;
  if (typeof message === 'string' && CONNECTION_MESSAGES.test(message)) return true;
  return isDatabaseUnavailable(cause, depth + 1) || isDatabaseUnavailable(originalError, depth + 1);
}
