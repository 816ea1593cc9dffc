// Structured logs (pino). Every line written while a request is handled carries its request id,
// through AsyncLocalStorage. Keys, tokens and bodies are never logged: request lines hold only
// method, path (no query string), status and duration.
import { AsyncLocalStorage } from 'node:async_hooks';
import { pino, type Logger } from 'pino';

export type { Logger };

export const requestScope = new AsyncLocalStorage<{ requestId: string }>();

export function currentRequestId(): string | undefined {
  return requestScope.getStore()?.requestId;
}

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: undefined,
      mixin: () => {
        const requestId = currentRequestId();
        return requestId ? { requestId } : {};
      },
      // Belt and braces: should a header object ever reach a log call, its secrets are blanked.
      redact: {
        paths: ['req.headers["x-api-key"]', 'req.headers["x-admin-token"]', 'req.headers.authorization', 'req.headers.cookie', '*.api_key', '*.apiKey', '*.secret', '*.password'],
        censor: '[redacted]',
      },
    },
    destination,
  );
}
