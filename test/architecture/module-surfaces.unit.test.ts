// Every module has a public surface (index.ts), and each one loads on its own, first, in a fresh
// process: an import cycle through the surfaces that leaves a binding uninitialised at load time
// (a policy defined before definePolicy exists, say) fails here rather than in whichever order a
// process happens to load them.
import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const MODULES = join(import.meta.dirname, '../../src/modules');
const run = promisify(execFile);

describe('module surfaces', () => {
  const modules = readdirSync(MODULES, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name);

  it('every module has an index.ts', () => {
    expect(modules.filter((m) => !existsSync(join(MODULES, m, 'index.ts')))).toEqual([]);
  });

  it('each index.ts loads first in a fresh process', { timeout: 120_000 }, async () => {
    const failures: string[] = [];
    await Promise.all(
      modules.map(async (m) => {
        const file = join(MODULES, m, 'index.ts');
        try {
          await run(process.execPath, ['--import', 'tsx', '-e', `await import(${JSON.stringify(file)})`], { timeout: 60_000 });
        } catch (error) {
          failures.push(`${m}: ${String((error as { stderr?: string }).stderr ?? error).split('\n').find((l) => /Error/.test(l)) ?? error}`);
        }
      }),
    );
    expect(failures).toEqual([]);
  });
});
