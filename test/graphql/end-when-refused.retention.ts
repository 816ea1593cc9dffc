// Run by end-when-refused.unit.test.ts in a process of its own: counting the live promises walks
// the whole heap, which in a test worker holds every module and service its earlier files made
// (vitest runs a worker's files in one module graph), and took a minute there; here it is a small heap.
import v8 from 'node:v8';
import type { ExecutionResult } from 'graphql';
import { endWhenRefused } from '../../src/graphql/key-watch.js';

const results = Number(process.argv[2]);

async function* counting(n: number): AsyncGenerator<ExecutionResult> {
  for (let i = 0; i < n; i++) yield { data: { i } };
}

const livePromises = () => v8.queryObjects(Promise, { format: 'count' }) as number;

let stopped = 0;
const stream = endWhenRefused(counting(results), () => () => stopped++);
await stream.next();
const before = livePromises();
let seen = 1;
while (!(await stream.next()).done) seen++;
const after = livePromises();
// The stream is alive still (a subscription between two results).
await stream.return!();
process.stdout.write(`${JSON.stringify({ seen, stopped, grown: after - before })}\n`);
