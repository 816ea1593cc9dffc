// Entry of the local analysis worker threads. Threads start without the TypeScript loader the main
// thread may run under (tsx, vitest), so this plain module loads the TypeScript worker through tsx.
import { tsImport } from 'tsx/esm/api';

const worker = await tsImport('./local.worker.ts', import.meta.url);

export default worker.default;
