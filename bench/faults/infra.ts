// Private servers for the fault suite: a PostgreSQL cluster and a Redis server of the suite's own,
// on ports of their own (5544 and 6390 unless FAULTS_PG_PORT / FAULTS_REDIS_PORT say otherwise),
// with their data in a temp folder, so stopping and restarting them never touches the machine's
// shared PostgreSQL (5432) or Redis (6379). Each script starts what it needs and removes it at the
// end, also on Ctrl-C. Needs PostgreSQL's initdb/pg_ctl (on PATH, or /usr/lib/postgresql/<v>/bin)
// and redis-server/redis-cli; as root, PostgreSQL runs as the postgres user (runuser).
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

const SHARED_PORTS = new Set([5432, 6379]);
const cleanups = new Set<() => void>();
let handlersInstalled = false;

/** Runs every registered clean-up once (synchronously: also usable from an exit handler). */
export function cleanUpAll(): void {
  for (const cleanup of [...cleanups].reverse()) {
    cleanups.delete(cleanup);
    try {
      cleanup();
    } catch (error) {
      console.error('clean-up failed:', (error as Error).message);
    }
  }
}

function onCleanUp(cleanup: () => void): () => void {
  if (!handlersInstalled) {
    handlersInstalled = true;
    process.on('exit', cleanUpAll);
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      process.on(signal, () => {
        cleanUpAll();
        process.exit(130);
      });
    }
  }
  cleanups.add(cleanup);
  return () => cleanups.delete(cleanup);
}

/** True when something accepts TCP connections on 127.0.0.1:port. */
export function portInUse(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

function checkPort(name: string, port: number): void {
  if (!Number.isInteger(port) || port <= 0) throw new Error(`${name} must be a port number`);
  if (SHARED_PORTS.has(port)) throw new Error(`${name} ${port} is the machine's shared server: the fault suite only stops servers of its own`);
}

/** Children of a process, from /proc. */
function childPids(parent: number): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === parent) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------------------------
// PostgreSQL

function pgBin(tool: string): string {
  const onPath = spawnSync('which', [tool], { encoding: 'utf8' }).stdout.trim();
  if (onPath) return onPath;
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  for (const v of versions) if (existsSync(join(root, v, 'bin', tool))) return join(root, v, 'bin', tool);
  throw new Error(`${tool} not found: install PostgreSQL's server binaries (postgresql-15 or similar)`);
}

export interface PostgresServer {
  port: number;
  /** Connection URL of a database on it (user postgres, trust authentication). */
  url(database?: string): string;
  /** Creates a fresh database and answers its URL. */
  createDatabase(prefix: string): Promise<string>;
  /** pg_ctl stop (-m fast: clients are disconnected, like an administrator's restart). */
  stop(mode?: 'fast' | 'immediate'): void;
  start(): void;
  isReady(): boolean;
  /** SIGSTOP to every process of the cluster: connections are accepted by the kernel, nothing answers (like a partition). */
  freeze(): void;
  /** SIGCONT to the processes freeze() stopped. */
  thaw(): void;
  /** The server's log so far (for the report when something fails). */
  log(): string;
  destroy(): void;
}

/** A PostgreSQL cluster of its own in a temp folder, listening on 127.0.0.1:port only. */
export async function startPostgres(port = Number(process.env.FAULTS_PG_PORT ?? 5544)): Promise<PostgresServer> {
  checkPort('FAULTS_PG_PORT', port);
  if (await portInUse(port)) throw new Error(`port ${port} is already in use: stop whatever listens there or set FAULTS_PG_PORT`);
  const asRoot = userInfo().uid === 0;
  const dir = mkdtempSync(join(tmpdir(), 'faults-pg-'));
  const data = join(dir, 'data');
  const logFile = join(dir, 'postgres.log');
  mkdirSync(data, { mode: 0o700 });
  chmodSync(dir, 0o755);
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
    chownSync(data, uid, gid);
  }
  const run = (tool: string, args: string[]) => {
    const [command, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', pgBin(tool), ...args]] : [pgBin(tool), args];
    return execFileSync(command, argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  };
  const serverOptions = `-p ${port} -c listen_addresses=127.0.0.1 -k ${dir} -c max_connections=100`;
  const start = () => {
    run('pg_ctl', ['-D', data, '-l', logFile, '-w', '-t', '60', '-o', serverOptions, 'start']);
  };
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--no-sync', '--no-instructions']);
  start();
  let stopped = false;
  let frozen: number[] = [];
  const server: PostgresServer = {
    port,
    url: (database = 'postgres') => `postgresql://postgres@127.0.0.1:${port}/${database}`,
    createDatabase: async (prefix) => {
      const name = `${prefix}_${randomBytes(4).toString('hex')}`;
      const client = new pg.Client({ connectionString: server.url() });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${name}`);
      } finally {
        await client.end();
      }
      return server.url(name);
    },
    stop: (mode = 'fast') => {
      run('pg_ctl', ['-D', data, '-m', mode, '-w', '-t', '60', 'stop']);
    },
    start,
    isReady: () => {
      try {
        run('pg_ctl', ['-D', data, 'status']);
        return true;
      } catch {
        return false;
      }
    },
    freeze: () => {
      const postmaster = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
      frozen = [postmaster, ...childPids(postmaster)];
      for (const pid of frozen) process.kill(pid, 'SIGSTOP');
    },
    thaw: () => {
      for (const pid of frozen) {
        try {
          process.kill(pid, 'SIGCONT');
        } catch {
          // gone
        }
      }
      frozen = [];
    },
    log: () => (existsSync(logFile) ? readFileSync(logFile, 'utf8') : ''),
    destroy: () => {
      if (stopped) return;
      stopped = true;
      unregister();
      server.thaw();
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } catch {
        // already stopped
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
  const unregister = onCleanUp(() => server.destroy());
  return server;
}

// ---------------------------------------------------------------------------------------------
// Redis

export interface RedisServer {
  port: number;
  url: string;
  /** SHUTDOWN NOSAVE: the server goes, and with it everything it held (no persistence, as configured). */
  stop(): void;
  start(): Promise<void>;
  destroy(): void;
}

/** A redis-server of its own on 127.0.0.1:port, no persistence (--save "" --appendonly no). */
export async function startRedis(port = Number(process.env.FAULTS_REDIS_PORT ?? 6390)): Promise<RedisServer> {
  checkPort('FAULTS_REDIS_PORT', port);
  if (await portInUse(port)) throw new Error(`port ${port} is already in use: stop whatever listens there or set FAULTS_REDIS_PORT`);
  const dir = mkdtempSync(join(tmpdir(), 'faults-redis-'));
  const start = async () => {
    execFileSync('redis-server', [
      '--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'yes',
      '--dir', dir, '--pidfile', join(dir, 'redis.pid'), '--logfile', join(dir, 'redis.log'),
    ]);
    const deadline = Date.now() + 10_000;
    while (!(await portInUse(port))) {
      if (Date.now() > deadline) throw new Error(`redis-server did not listen on ${port} within 10 s`);
      await sleep(50);
    }
  };
  const stop = () => {
    try {
      execFileSync('redis-cli', ['-p', String(port), 'shutdown', 'nosave'], { stdio: 'ignore' });
    } catch {
      // redis-cli reports the connection closing under it
    }
  };
  await start();
  let destroyed = false;
  const server: RedisServer = {
    port,
    url: `redis://127.0.0.1:${port}`,
    stop,
    start,
    destroy: () => {
      if (destroyed) return;
      destroyed = true;
      unregister();
      stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  const unregister = onCleanUp(() => server.destroy());
  return server;
}

// ---------------------------------------------------------------------------------------------
// The built service

/** Builds the service into a folder of its own (removed at exit), so other builds never swap it under us. */
export function buildService(root: string): string {
  const distDir = join(root, `dist-faults-${randomBytes(4).toString('hex')}`);
  execFileSync(process.execPath, ['scripts/build.mjs', distDir], { cwd: root, stdio: 'inherit' });
  onCleanUp(() => rmSync(distDir, { recursive: true, force: true }));
  return distDir;
}

/** A temp folder removed at exit. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  onCleanUp(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
