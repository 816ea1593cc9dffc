// `npm run bench:faults [-- kill postgres redis]`: runs the fault scripts one after the other
// (all three when none is named), each in a process of its own, and says which found problems.
// Each script writes its section of bench/RESULTS.md (BENCH_WRITE=0: print only) and exits 1 when
// it found a problem. See each script's header for what it does and its knobs.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const SCRIPTS = { kill: 'kill-jobs.ts', postgres: 'postgres-restart.ts', redis: 'redis-outage.ts' } as const;
type Name = keyof typeof SCRIPTS;

const asked = process.argv.slice(2);
for (const name of asked) if (!(name in SCRIPTS)) throw new Error(`unknown fault ${name}: expected ${Object.keys(SCRIPTS).join(', ')}`);
const names = (asked.length > 0 ? asked : Object.keys(SCRIPTS)) as Name[];
const outcomes: string[] = [];
for (const name of names) {
  console.log(`\n=== fault: ${name} ===`);
  const started = Date.now();
  const result = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(new URL(`./${SCRIPTS[name]}`, import.meta.url))], { stdio: 'inherit' });
  const seconds = ((Date.now() - started) / 1000).toFixed(0);
  outcomes.push(`${name}: ${result.status === 0 ? 'no problem found' : result.status === 1 ? 'problems found (see its section)' : `failed to run (exit ${result.status ?? result.signal})`} in ${seconds} s`);
  if (result.status !== 0) process.exitCode = 1;
}
console.log(`\n${outcomes.join('\n')}`);
