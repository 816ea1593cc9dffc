// Counts the model calls (prisma.<model>.<operation>) a piece of work makes: the measure of N+1 in
// the GraphQL tests. The app's client is swapped for a counting proxy while `fn` runs.
import type { App } from '../../src/app.js';

/** The calls made while `fn` ran, sorted (dataloaders may issue them in any order). */
export async function countPrismaCalls(app: App, fn: () => Promise<void>): Promise<string[]> {
  const db = app.services.db;
  const real = db.prisma;
  const calls: string[] = [];
  db.prisma = new Proxy(real, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof prop !== 'string' || prop.startsWith('$') || typeof value !== 'object' || value === null) return value;
      return new Proxy(value, {
        get(model, op) {
          const method = Reflect.get(model, op);
          return typeof method === 'function'
            ? (...args: unknown[]) => {
                calls.push(`${prop}.${String(op)}`);
                return method.apply(model, args);
              }
            : method;
        },
      });
    },
  });
  try {
    await fn();
  } finally {
    db.prisma = real;
  }
  return calls.sort();
}
