// The README's tour, run as written: its shell commands, taken from README.md's "A tour" section,
// against a service on a random port (never 4000) found through SERVICE_URL and DATA_DIR only. When
// the README and the service disagree, this fails. The one liberty: the job poll the README says to
// repeat "every 2 to 5 s until completed" is repeated until it says so.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startFixtureSite, type FixtureSite } from '../fixtures/site.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

const README = readFileSync(fileURLToPath(new URL('../../README.md', import.meta.url)), 'utf8');

/** The shell commands of the tour, one per entry (continuation lines joined, comments dropped). */
function tourCommands(): string[] {
  const tour = README.slice(README.indexOf('## A tour'), README.indexOf('\n## ', README.indexOf('## A tour') + 1));
  const blocks = [...tour.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
  return blocks.flatMap((block) =>
    block
      .replace(/\\\n\s*/g, ' ')
      .split('\n')
      .map((line) => line.replace(/\s{2,}#.*$/, '').trim())
      .filter((line) => line && !line.startsWith('#')),
  );
}

let t: TestApp;
let site: FixtureSite;
let cwd: string;
beforeAll(async () => {
  site = await startFixtureSite();
  t = await startTestApp({ fetch: { allowPrivateAddresses: true, timeoutMs: 15_000, maxRedirects: 5, userAgent: 'tour-test' } });
  cwd = mkdtempSync(join(tmpdir(), 'readme-tour-'));
  await sharp({ create: { width: 64, height: 48, channels: 3, background: '#204060' } }).jpeg().toFile(join(cwd, 'harbour.jpg'));
});
afterAll(async () => {
  await t?.stop();
  await site?.close();
  rmSync(cwd, { recursive: true, force: true });
});

it('runs on a port that is not 4000, as the README says, with the answers it shows', { timeout: 120_000 }, async () => {
  const port = new URL(t.url).port;
  expect(port).not.toBe('4000');
  const commands = tourCommands();
  expect(commands.length).toBeGreaterThanOrEqual(8);
  // One shell, so the README's variables (SERVICE_URL, KEY, JOB) carry from command to command; each
  // command's output is fenced so it can be told apart.
  const poll = commands.findIndex((c) => c.includes('/api/jobs/$JOB'));
  expect(poll).toBeGreaterThan(0);
  const script = [
    'set -e',
    ...commands.map((command, i) =>
      i === poll
        ? `for n in $(seq 1 60); do out=$(${command}); case "$out" in *'"status":"completed"'*) break;; esac; sleep 0.5; done; printf '\\n@@${i}\\n'; echo "$out"`
        : `printf '\\n@@${i}\\n'; ${command}`,
    ),
  ].join('\n');
  const env = { PATH: process.env.PATH ?? '', HOME: cwd, PORT: port, DATA_DIR: t.config.dataDir, PAGE: `${site.url}/gallery/3` };
  const output = await new Promise<string>((resolve, reject) =>
    execFile('bash', ['-c', script], { cwd, env, timeout: 100_000 }, (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stdout}\n${stderr}`)) : resolve(stdout))),
  );
  const answers = output.split(/^@@\d+\n/m).slice(1).map((a) => a.trim());
  const answer = (needle: string) => answers[commands.findIndex((c) => c.includes(needle))]!;

  expect(answer('/api/jobs/$JOB')).toMatch(/"status":"completed"/);
  const job = JSON.parse(answer('/api/jobs/$JOB')).job_id as number;
  expect(statSync(join(cwd, `job-${job}.zip`)).size).toBeGreaterThan(100);
  expect(JSON.parse(answer('/api/media/upload'))).toMatchObject({ success: true, tags: ['sea', 'boats'], duplicate: false });
  expect(JSON.parse(answer('/api/media/search'))).toMatchObject({ success: true, query: 'harb', total: 1, items: [{ name: 'Harbour at dusk' }] });
  expect(JSON.parse(answer('viewer { handle tier }'))).toEqual({ data: { viewer: { handle: 'owner', tier: 'operator' }, mediaSearch: { data: { total: 1, items: [{ name: 'Harbour at dusk', tags: ['sea', 'boats'] }] } } } });
  const events = answer('text/event-stream');
  expect(events).toContain('"state":"completed"');
  expect(events).toMatch(/event: complete\s*(data:\s*)?$/);
});
