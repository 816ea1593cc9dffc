// Entry of the local analysis worker threads. Threads start without the TypeScript loader the main
// thread may run under (tsx, vitest): in a build (dist/, `npm start`) the transpiled worker sits next
// to this file; from the sources it is loaded through tsx.
import { existsSync } from 'node:fs';

const compiled = new URL('./local.worker.js', import.meta.url);
const worker = existsSync(compiled)
  ? await import(compiled.href)
  : await (await import('tsx/esm/api')).tsImport('./local.worker.ts', import.meta.url);

export default worker.default;
