// Writes one fault scenario's section of bench/RESULTS.md (between markers of its own, like every
// benchmark; BENCH_WRITE=0 only prints), headed by when, where, what and how it ran.
import { writeResultsSection } from '../results.js';
import { gitState, machine } from './common.js';

const TITLES: Record<string, string> = {
  kill: 'Faults: kill -9 of the job process during scrape jobs',
  postgres: 'Faults: PostgreSQL restarted under REST load',
  redis: 'Faults: Redis stopped and started under the Redis tier',
};

const MACHINE_AT_START = machine();

const SERVERS: Record<string, string> = {
  kill: 'for the distributed set-up the script starts and removes a PostgreSQL (port 5544) and a Redis (port 6390) of its own',
  postgres: 'the script starts, stops and removes a PostgreSQL cluster of its own (port 5544), never the shared one',
  redis: 'the script starts, stops and removes a PostgreSQL (port 5544) and a redis-server (port 6390) of its own, never the shared ones',
};

export function appendFaultSection(name: 'kill' | 'postgres' | 'redis', body: string, command: string): void {
  const header = [
    `## ${TITLES[name]}`,
    '',
    `- Date: ${new Date().toISOString()}`,
    `- Machine: ${MACHINE_AT_START}`,
    `- Service: the built service (scripts/build.mjs into a folder of its own) from ${gitState()}`,
    `- Command: \`${command}\` (or \`npm run bench:faults -- ${name}\`); ${SERVERS[name]}`,
    '',
  ].join('\n');
  writeResultsSection(`faults-${name}`, `${header}\n${body.replace(/^### .*\n\n?/, '')}`);
}

/** Counted messages, most frequent first: "message ×count; ...". */
export function byCount(counts: Map<string, number>): string {
  return [...counts]
    .sort((a, b) => b[1] - a[1])
    .map(([message, count]) => `${message} ×${count}`)
    .join('; ');
}

/** The verdict sentence: what a clean run shows (and how, in `detail`), or the problems found. */
export function verdict(defects: string[], clean: string, detail = ''): string {
  return `Verdict: ${defects.length === 0 ? `**${clean}**${detail}` : `**${defects.length} problem(s)**: ${defects.join('; ')}`}.`;
}

/** Prints the section, writes it to bench/RESULTS.md, and fails the run when it found a problem. */
export function publishFaultSection(name: 'kill' | 'postgres' | 'redis', markdown: string, command: string, defects: string[]): void {
  console.log(`\n${markdown}\n`);
  appendFaultSection(name, markdown, command);
  if (defects.length > 0) process.exitCode = 1;
}
