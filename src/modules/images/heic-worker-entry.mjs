// Entry of the HEIC decoding threads (heic.decoder.ts). Threads start without the TypeScript loader
// the main thread may run under (tsx, vitest): in a build the transpiled worker sits next to this
// file; from the sources it is loaded through tsx.
import { existsSync } from 'node:fs';

const compiled = new URL('./heic.worker.js', import.meta.url);
const worker = existsSync(compiled) ? await import(compiled.href) : await (await import('tsx/esm/api')).tsImport('./heic.worker.ts', import.meta.url);

export default worker.default;
