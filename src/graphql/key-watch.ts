// Open subscriptions end when their key may no longer be used (revoked, rotated, expired, account
// suspended), within the moment every process hears of it (src/modules/accounts/key-watch.ts).
// Over graphql-ws the socket itself is watched and closed (server.ts: 4401 or 4403 with the
// reason); over yoga's HTTP transports (SSE, multipart) this plugin ends each subscription's stream
// with one last result carrying the error a request would get, then completes it.
import type { ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { AppError } from '../platform/errors.js';
import type { Context } from './context.js';
import { toGraphQLError } from './errors.js';
import type { ServerContext } from './server.js';

export function useSubscriptionKeyWatch(): Plugin<ServerContext & Context> {
  return {
    onSubscribe: () => ({
      onSubscribeResult: ({ args, result, setResult }) => {
        const context = args.contextValue as Context & ServerContext;
        const actor = context.actor;
        if (!actor || context.watchedBySocket || !isAsyncIterable(result)) return;
        setResult(endWhenRefused(result, (onRefused) => context.services.keyWatch.watch(actor, onRefused)));
      },
    }),
  };
}

type Watch = (onRefused: (error: AppError) => void) => () => void;

/**
 * The source's results until the watch refuses the key; then one result with the refusal and the
 * end. Written as a plain iterator (not an async generator) so that return() from a client that
 * went away ends the source at once, even while a next() waits.
 */
export function endWhenRefused(source: AsyncIterable<ExecutionResult>, watch: Watch): AsyncIterableIterator<ExecutionResult> {
  const iterator = source[Symbol.asyncIterator]();
  let refusal: AppError | undefined;
  // Woken by a refusal: a promise per next(), never one for the stream's life, since each race
  // leaves a reaction on a promise that has not settled (two promises per result, kept).
  let wake: (() => void) | undefined;
  let finished = false;
  const stop = watch((error) => {
    refusal = error;
    wake?.();
  });
  const finish = async () => {
    if (finished) return;
    finished = true;
    stop();
    await iterator.return?.();
  };
  return {
    [Symbol.asyncIterator]() {
      return this;
    },
    async next() {
      if (finished) return { done: true, value: undefined };
      const refused = refusal ? Promise.resolve(null) : new Promise<null>((resolve) => (wake = () => resolve(null)));
      const next = await Promise.race([iterator.next(), refused]).finally(() => (wake = undefined));
      if (next === null || refusal) {
        await finish();
        return { done: false, value: { errors: [toGraphQLError(refusal!)] } };
      }
      if (next.done) await finish();
      return next;
    },
    async return() {
      await finish();
      return { done: true, value: undefined };
    },
    async throw(error: unknown) {
      await finish();
      throw error;
    },
  };
}

function isAsyncIterable(value: unknown): value is AsyncIterable<ExecutionResult> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}
