// endWhenRefused (src/graphql/key-watch.ts) ends an SSE subscription when its key is refused, and
// holds nothing per result while it runs: racing each next() against one promise that settles only
// on a refusal left two promises behind per result (a reaction on that promise), for the life of
// the subscription.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { ExecutionResult } from 'graphql';
import { describe, expect, it } from 'vitest';
import { endWhenRefused } from '../../src/graphql/key-watch.js';
import { Unauthenticated, type AppError } from '../../src/platform/errors.js';

const RESULTS = 10_000;

describe('endWhenRefused', () => {
  it('retains nothing per result of a long subscription', async () => {
    // Counted in a process of its own (see the script): a small heap to walk.
    const script = fileURLToPath(new URL('./end-when-refused.retention.ts', import.meta.url));
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', script, String(RESULTS)], { cwd: fileURLToPath(new URL('../..', import.meta.url)) });
    const { seen, stopped, grown } = JSON.parse(stdout) as { seen: number; stopped: number; grown: number };
    expect(seen).toBe(RESULTS);
    expect(stopped).toBe(1);
    expect(grown).toBeLessThan(RESULTS / 10);
  });

  it('ends with the refusal while a next() waits, and stops the watch once', async () => {
    let refuse!: (error: AppError) => void;
    let stopped = 0;
    // A source like a pubsub's: return() ends it at once, even while a next() waits.
    let ended!: (result: IteratorResult<ExecutionResult>) => void;
    const ending = new Promise<IteratorResult<ExecutionResult>>((resolve) => (ended = resolve));
    let first = true;
    const slow = (): AsyncIterableIterator<ExecutionResult> => ({
      [Symbol.asyncIterator]() {
        return this;
      },
      next: () => (first ? ((first = false), Promise.resolve({ done: false, value: { data: { first: true } } })) : ending),
      return: () => (ended({ done: true, value: undefined }), ending),
    });
    const stream = endWhenRefused(slow(), (onRefused) => ((refuse = onRefused), () => stopped++));
    expect(await stream.next()).toEqual({ done: false, value: { data: { first: true } } });
    const pending = stream.next();
    refuse(new Unauthenticated('this sub-key has been revoked'));
    const last = await pending;
    expect(last.done).toBe(false);
    expect(last.value.errors?.[0]?.message).toBe('this sub-key has been revoked');
    expect(await stream.next()).toEqual({ done: true, value: undefined });
    expect(stopped).toBe(1);
  });
});
