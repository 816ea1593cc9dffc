// Operator CLI: `npm run cli -- <command>`. Talks to a running service's admin REST routes (the
// accounts, ledger and economy operations; the reward settings' rows in src/modules/ledger/ledger.operations.ts)
// over HTTP and prints one JSON line per command. `backup` saves GET /api/admin/backup to a file;
// `restore` works offline, on a data folder no service has open (src/platform/backup.ts).
import { createWriteStream, existsSync, readFileSync, statSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { pipeline } from 'node:stream/promises';
import { Command } from 'commander';

class CliError extends Error {}

const program = new Command('cli')
  .description('Operator commands for a running image service')
  .option('--url <url>', 'service URL (default: SERVICE_URL, else http://localhost:$PORT or 4000)')
  .option('--admin-token <token>', 'admin token (default: ADMIN_TOKEN, else $DATA_DIR/admin-token)')
  .showHelpAfterError();

function serviceUrl(): string {
  const url = program.opts<{ url?: string }>().url ?? process.env.SERVICE_URL ?? `http://localhost:${process.env.PORT ?? 4000}`;
  return url.replace(/\/+$/, '');
}

function adminToken(): string {
  const given = program.opts<{ adminToken?: string }>().adminToken ?? process.env.ADMIN_TOKEN;
  if (given?.trim()) return given.trim();
  const file = join(process.env.DATA_DIR ?? './data', 'admin-token');
  let token = '';
  try {
    token = readFileSync(file, 'utf8').trim();
  } catch {
    // missing or unreadable: reported below
  }
  if (!token) throw new CliError(`no admin token: pass --admin-token, set ADMIN_TOKEN, or run from the service's directory so ${file} can be read`);
  return token;
}

type Json = Record<string, unknown>;

async function callAdmin(method: 'GET' | 'POST' | 'PATCH', path: string, body?: Json): Promise<Json> {
  const token = adminToken();
  const url = serviceUrl();
  let response: Response;
  try {
    response = await fetch(`${url}/api/admin${path}`, {
      method,
      headers: { 'X-Admin-Token': token, ...(body ? { 'Content-Type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const reason = cause?.code ?? cause?.message ?? (error as Error).message;
    throw new CliError(`cannot reach the service at ${url} (${reason}); start it with \`npm start\`, or pass --url`);
  }
  const text = await response.text();
  let data: Json;
  try {
    data = JSON.parse(text) as Json;
  } catch {
    throw new CliError(`unexpected answer from ${url} (HTTP ${response.status}): ${text.slice(0, 200)}`);
  }
  if (data.success !== true) throw new CliError(typeof data.error === 'string' ? data.error : `HTTP ${response.status}`);
  return data;
}

const handlePath = (handle: string) => `/accounts/${encodeURIComponent(handle)}`;
const pick = (data: Json, keys: string[]) => Object.fromEntries(keys.filter((k) => k in data).map((k) => [k, data[k]]));
const ACCOUNT = ['account_id', 'handle', 'email', 'status', 'tier', 'created_at'];
const print = (value: Json) => console.log(JSON.stringify(value));

const account = program.command('account').description('create and manage accounts');

account
  .command('create')
  .description('create an account; prints its master API key, shown only once')
  .requiredOption('--handle <handle>', 'account handle')
  .option('--email <email>', 'contact email')
  .option('--tier <tier>', 'rate-limit tier')
  .option('--referred-by <code>', "the referrer's referral code (it earns a commission on this account's rewards)")
  .action(async (opts: { handle: string; email?: string; tier?: string; referredBy?: string }) => {
    const data = await callAdmin('POST', '/accounts', { handle: opts.handle, email: opts.email, tier: opts.tier, referred_by: opts.referredBy });
    print(pick(data, ['account_id', 'handle', 'api_key', 'tier', 'status', 'email', 'referral_code', 'referred_by']));
  });

for (const action of ['suspend', 'activate', 'deactivate'] as const) {
  account
    .command(`${action} <handle>`)
    .description(`${action} an account`)
    .action(async (handle: string) => print(pick(await callAdmin('POST', `${handlePath(handle)}/${action}`), ACCOUNT)));
}

account
  .command('show <handle>')
  .description('show an account')
  .action(async (handle: string) => print(pick(await callAdmin('GET', handlePath(handle)), ACCOUNT)));

account
  .command('tier <handle> <tier>')
  .description("set an account's tier")
  .action(async (handle: string, tier: string) => print(pick(await callAdmin('POST', `${handlePath(handle)}/tier`, { tier }), ACCOUNT)));

program
  .command('key')
  .description('manage API keys')
  .command('rotate <handle>')
  .description('replace the master API key; the old one stops working at once')
  .action(async (handle: string) => print(pick(await callAdmin('POST', `${handlePath(handle)}/rotate-key`), ['account_id', 'handle', 'api_key'])));

/** `credits grant` and `coins grant`: the same call, each to its own admin route and ledger. */
function defineGrant(parent: Command, unit: 'credits' | 'coins', description: string, ledger: string) {
  parent
    .command('grant <handle> <amount>')
    .description(description)
    .option('--reference <text>', `why (shown in the account's ${ledger})`)
    .option('--idempotency-key <key>', 'a retry with the same key grants once')
    .action(async (handle: string, amount: string, opts: { reference?: string; idempotencyKey?: string }) => {
      const value = Number(amount);
      if (amount.trim() === '' || !Number.isFinite(value)) throw new CliError(`amount: expected a number of ${unit}, not ${amount}`);
      const data = await callAdmin('POST', `${handlePath(handle)}/${unit}`, { amount: value, reference: opts.reference, idempotency_key: opts.idempotencyKey });
      print(pick(data, ['account_id', 'handle', 'amount', 'balance', 'transfer_id', 'replayed']));
    });
}

defineGrant(program.command('credits').description('API credits'), 'credits', 'add API credits to an account', 'credit ledger');
defineGrant(program.command('coins').description('coins (rewards currency)'), 'coins', 'add coins to an account (from the grants account)', 'coin history');

const rewards = program.command('rewards').description('reward rates and daily caps (coins)');

rewards
  .command('show')
  .description('rates, factors and daily caps in force')
  .action(async () => print(pick(await callAdmin('GET', '/rewards'), ['rates', 'daily_caps', 'updated_at'])));

rewards
  .command('set <key> <value>')
  .description('set a rate or factor (tagging 0.75, coin_multiplier 2) or a daily cap (cap.tagging 100, cap.tagging none)')
  .action(async (key: string, value: string) => {
    const cap = /^cap\.(.+)$/.exec(key);
    let body: Json;
    if (cap) {
      const limit = value === 'none' || value === 'null' ? null : Number(value);
      if (limit !== null && !Number.isSafeInteger(limit)) throw new CliError(`${key}: expected a whole number of awards, or none`);
      body = { daily_caps: { [cap[1]!]: limit } };
    } else {
      const rate = Number(value);
      if (value.trim() === '' || !Number.isFinite(rate)) throw new CliError(`${key}: expected a number`);
      body = { rates: { [key]: rate } };
    }
    print(pick(await callAdmin('PATCH', '/rewards', body), ['rates', 'daily_caps', 'updated_at']));
  });

/** `claims list` and `challenge list`: a page of `/<rows>` filtered by status (`all`: any), one JSON line a row. */
function defineStatusList(parent: Command, rows: 'claims' | 'challenges', description: string, statuses: string, defaultStatus: string, fields: string[]) {
  parent
    .command('list')
    .description(description)
    .option('--status <status>', statuses, defaultStatus)
    .option('--limit <n>', 'how many', '50')
    .action(async (opts: { status: string; limit: string }) => {
      const query = new URLSearchParams({ limit: opts.limit, ...(opts.status === 'all' ? {} : { status: opts.status }) });
      const data = await callAdmin('GET', `/${rows}?${query}`);
      for (const row of data[rows] as Json[]) print(pick(row, fields));
    });
}

const claims = program.command('claims').description('ownership claims on community items');
const CLAIM = ['id', 'item_id', 'claimant', 'kind', 'royalty_coins', 'reason', 'status', 'reviewed_at', 'created_at'];

defineStatusList(claims, 'claims', 'claims, newest first (default: pending ones)', 'pending, approved, rejected or all', 'pending', CLAIM);

for (const decision of ['approve', 'reject'] as const) {
  claims
    .command(`${decision} <id>`)
    .description(decision === 'approve' ? 'approve a pending claim (a removal takes the item down)' : 'reject a pending claim')
    .action(async (id: string) => {
      if (!/^\d{1,10}$/.test(id)) throw new CliError(`id: expected a claim id, not ${id}`);
      print(pick(await callAdmin('POST', `/claims/${id}/${decision}`), CLAIM));
    });
}

const wiki = program.command('wiki').description('review wiki subjects');
const SUBJECT = ['slug', 'name', 'category', 'status', 'creator', 'created_at', 'reviewed_at'];

wiki
  .command('pending')
  .description('subjects waiting for review, oldest first')
  .option('--limit <n>', 'how many', '50')
  .action(async (opts: { limit: string }) => {
    const data = await callAdmin('GET', `/wiki/subjects?${new URLSearchParams({ status: 'pending', limit: opts.limit })}`);
    for (const subject of data.subjects as Json[]) print(pick(subject, SUBJECT));
  });

for (const decision of ['approve', 'reject'] as const) {
  wiki
    .command(`${decision} <slug>`)
    .description(decision === 'approve' ? 'approve a subject (its creator is paid 10 coins)' : 'reject a subject')
    .action(async (slug: string) => print(pick(await callAdmin('POST', `/wiki/subjects/${encodeURIComponent(slug)}/${decision}`), SUBJECT)));
}

const challenge = program.command('challenge').description('fact-checking challenges: wiki votes in them pay the challenge multiplier');
const CHALLENGE = ['id', 'title', 'scope', 'category', 'subjects', 'starts_at', 'ends_at', 'ended_at', 'status', 'pending_photos'];

challenge
  .command('create')
  .description('open a challenge over a wiki category or subjects (one at a time: windows never overlap)')
  .requiredOption('--title <title>', 'what the challenge is called')
  .option('--category <category>', 'every approved subject of this wiki category')
  .option('--subjects <slugs>', 'or these subjects: comma-separated slugs')
  .option('--starts <time>', 'ISO 8601 start (default now)')
  .requiredOption('--ends <time>', 'ISO 8601 end, at most 90 days after the start')
  .option('--description <text>', 'what to check')
  .action(async (opts: { title: string; category?: string; subjects?: string; starts?: string; ends: string; description?: string }) => {
    const subjects = opts.subjects === undefined ? undefined : opts.subjects.split(',').map((s) => s.trim()).filter(Boolean);
    const body = { title: opts.title, description: opts.description, category: opts.category, subjects, starts_at: opts.starts, ends_at: opts.ends };
    print(pick(await callAdmin('POST', '/challenges', body), CHALLENGE));
  });

defineStatusList(challenge, 'challenges', 'challenges, latest start first, one per line', 'scheduled, active, ended or all', 'all', CHALLENGE);

challenge
  .command('end <id>')
  .description('end a challenge now (a scheduled one is called off)')
  .action(async (id: string) => {
    if (!/^\d{1,10}$/.test(id)) throw new CliError(`id: expected a challenge id, not ${id}`);
    print(pick(await callAdmin('POST', `/challenges/${id}/end`), CHALLENGE));
  });

program
  .command('backup <file>')
  .description('write a consistent backup of the running embedded service (database, files, keys) to a new ZIP file')
  .action(async (file: string) => {
    const url = serviceUrl();
    if (existsSync(file)) throw new CliError(`${file} exists; give a new file name (a backup never overwrites one)`);
    let response: Response;
    try {
      response = await fetch(`${url}/api/admin/backup`, { headers: { 'X-Admin-Token': adminToken() } });
    } catch (error) {
      throw new CliError(`cannot reach the service at ${url} (${(error as Error).message}); start it with \`npm start\`, or pass --url`);
    }
    if (!response.ok || !response.body) {
      const text = await response.text();
      let message = `HTTP ${response.status}`;
      try {
        message = (JSON.parse(text) as Json).error as string;
      } catch {
        // not JSON: the status says it
      }
      throw new CliError(message);
    }
    const partial = `${file}.partial`;
    try {
      await pipeline(Readable.fromWeb(response.body as WebReadableStream<Uint8Array>), createWriteStream(partial, { flags: 'wx', mode: 0o600 }));
    } catch (error) {
      await rm(partial, { force: true });
      throw new CliError(`backup failed while downloading (${(error as Error).message}); ${file} was not written`);
    }
    await rename(partial, file);
    print({ file, bytes: statSync(file).size });
  });

program
  .command('restore <file>')
  .description('unpack a backup into a new or empty data folder (--data-dir, else DATA_DIR, else ./data); then `npm start` serves it')
  .option('--data-dir <dir>', 'the folder to restore into')
  .action(async (file: string, opts: { dataDir?: string }) => {
    const dataDir = resolve(opts.dataDir ?? process.env.DATA_DIR ?? './data');
    const { restoreBackup, RestoreError } = await import('../platform/backup.js');
    try {
      const { files } = await restoreBackup(file, dataDir);
      print({ data_dir: dataDir, files });
    } catch (error) {
      throw error instanceof RestoreError ? new CliError(error.message) : error;
    }
  });

try {
  await program.parseAsync();
} catch (error) {
  console.error(`error: ${(error as Error).message}`);
  process.exitCode = 1;
}
