// API_PROCESSES (src/api-processes.ts): allowed only where several machines would be correct, and
// `npm start`'s entry then runs that many API processes on one port, stopped together by SIGTERM.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { apiProcessesRefusal } from '../src/api-processes.js';
import { createTestDatabase, usePostgres } from './helpers/database.js';

const MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));
const ADMIN_TOKEN = 'api-processes-test-token-0123';

describe('apiProcessesRefusal', () => {
  const everything = { databaseUrl: 'postgresql://h/db', redisUrl: 'redis://h:6379' };

  it('lets one process run with any settings', () => {
    expect(apiProcessesRefusal({ apiProcesses: 1 })).toBeNull();
  });

  it('lets several run with PostgreSQL and Redis', () => {
    expect(apiProcessesRefusal({ apiProcesses: 2, ...everything })).toBeNull();
    expect(apiProcessesRefusal({ apiProcesses: 4, ...everything, telegram: { mode: 'webhook' } })).toBeNull();
  });

  it('names what is missing: the embedded database, Redis', () => {
    expect(apiProcessesRefusal({ apiProcesses: 2, redisUrl: everything.redisUrl })).toMatch(/^API_PROCESSES=2 needs DATABASE_URL/);
    expect(apiProcessesRefusal({ apiProcesses: 2, databaseUrl: everything.databaseUrl })).toMatch(/^API_PROCESSES=2 needs REDIS_URL .*key revocations/);
    expect(apiProcessesRefusal({ apiProcesses: 3 })).toMatch(/DATABASE_URL .* and REDIS_URL/);
  });

  it('refuses Telegram polling (one poller per token)', () => {
    expect(apiProcessesRefusal({ apiProcesses: 2, ...everything, telegram: { mode: 'polling' } })).toMatch(/TELEGRAM_MODE=webhook or none/);
  });
});

/** `npm start`'s entry (through tsx) with this environment: its exit code and log lines. */
function startMain(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  createInterface({ input: child.stdout }).on('line', (line) => lines.push(line));
  createInterface({ input: child.stderr }).on('line', (line) => lines.push(line));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const logged = (msg: string) => lines.filter((line) => line.startsWith('{') && (JSON.parse(line) as { msg?: string }).msg === msg);
  return { child, lines, exited, logged };
}

describe('npm start with API_PROCESSES', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'api-processes-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('refuses to start without Redis, saying why', async () => {
    const main = startMain({ API_PROCESSES: '2', DATABASE_URL: 'postgresql://postgres@127.0.0.1:1/none', DATA_DIR: dataDir, ADMIN_TOKEN });
    expect(await main.exited).toBe(1);
    expect(main.lines.join('\n')).toContain('API_PROCESSES=2 needs REDIS_URL');
  }, 60_000);

  it.skipIf(!usePostgres)('runs two processes on one port that answer, and stops them all on SIGTERM', async () => {
    const database = await createTestDatabase();
    const port = String(20_000 + Math.floor(Math.random() * 20_000));
    const main = startMain({
      API_PROCESSES: '2',
      DATABASE_URL: database.url!,
      REDIS_URL: 'redis://127.0.0.1:6379',
      REDIS_PREFIX: `api-processes-${port}`,
      PORT: port,
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      ADMIN_TOKEN,
      NODE_ENV: 'production',
    });
    try {
      const deadline = Date.now() + 150_000;
      // The primary says so once both listen; each says 'service started' just after.
      while (main.logged('every API process listens').length === 0 || main.logged('service started').length < 2) {
        if (main.child.exitCode !== null || Date.now() > deadline) throw new Error(`no start:\n${main.lines.join('\n')}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      // Only the first process made the operator's account (the others started once it listened).
      expect(main.logged('created the first account; its key is in the file')).toHaveLength(1);
      for (let i = 0; i < 4; i++) {
        const answer = await fetch(`http://127.0.0.1:${port}/api/admin/accounts`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'X-Admin-Token': ADMIN_TOKEN },
          body: JSON.stringify({ handle: `cluster-${i}` }),
        });
        expect(answer.status).toBe(201);
      }
      main.child.kill('SIGTERM');
      expect(await main.exited).toBe(0);
      expect(main.logged('stopping')).toHaveLength(2);
    } finally {
      main.child.kill('SIGKILL');
      await database.drop();
    }
  }, 200_000);
});
