// A module that runs as a child process of its own (crawl processes, the embedded database's setup).
// A build (npm start, npm run worker) forks the transpiled entry with plain node; from the sources
// (tests, npm run dev) the child needs tsx to load TypeScript, as this process does.
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The entry file `name` (without extension) beside the module at `moduleUrl`, and the node flags to run it. */
export function childEntry(moduleUrl: string, name: string): { entry: string; execArgv: string[] } {
  const fromSources = moduleUrl.endsWith('.ts');
  return {
    entry: fileURLToPath(new URL(`./${name}.${fromSources ? 'ts' : 'js'}`, moduleUrl)),
    execArgv: fromSources ? ['--import', pathToFileURL(createRequire(moduleUrl).resolve('tsx')).href] : [],
  };
}
