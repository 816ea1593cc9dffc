// Schedules end to end: creation defaults and next_run, validation, toggle, delete, ownership, and
// the scheduler: a due schedule runs exactly once even when ticks race, then moves forward, and a
// failure between claiming a run and recording its job loses nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_FETCH, startTestApp, type TestApp } from '../helpers/app.js';
import { waitForJob } from '../helpers/jobs.js';
import { chromiumAvailable } from '../helpers/browser.js';
import { startFixtureSite, type FixtureSite } from '../fixtures/site.js';
import { nextOccurrence } from '../../src/modules/automation/schedule-time.js';

const HOUR = 3_600_000;

let t: TestApp;
let site: FixtureSite;

beforeAll(async () => {
  site = await startFixtureSite();
  t = await startTestApp({
    fetch: LOCAL_FETCH,
    jobs: { concurrency: 2, leaseMs: 10_000, pollMs: 50 },
  });
});
afterAll(async () => {
  await t?.stop();
  await site?.close();
});

async function create(key: string, body: Record<string, unknown>) {
  const res = await t.request('POST', '/api/automation/schedules', { key, body });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

/** next_run computed around a request: it must be one of the two (the hour may turn in between). */
function expectNextRun(actual: string, recurrence: Parameters<typeof nextOccurrence>[0], before: Date, after: Date) {
  expect([nextOccurrence(recurrence, before).toISOString(), nextOccurrence(recurrence, after).toISOString()]).toContain(actual);
}

describe('POST /api/automation/schedules', () => {
  it('applies the documented defaults: weekly on Monday at 08:00 UTC, sniper mode, 100 files', async () => {
    const before = new Date();
    const res = await t.request('POST', '/api/automation/schedules', { key: t.ownerKey, body: { url: `${site.url}/`, name: 'front page' } });
    const after = new Date();
    expect(res.status, res.text).toBe(201);
    expect(res.body).toEqual({
      success: true,
      schedule_id: expect.any(Number),
      next_run: expect.stringMatching(/^\d{4}-\d\d-\d\dT08:00:00\.000Z$/),
      name: 'front page',
      url: `${site.url}/`,
      schedule: 'weekly',
      hour: 8,
      day_of_week: 0,
      max_files: 100,
      sniper_mode: true,
      ai_labeling: false,
      render: null, // left out: each run follows the operator's RENDER_AUTO
      enabled: true,
      last_run_at: null,
      last_job_id: null,
      last_error: null,
      run_count: 0,
      created_at: expect.any(String),
    });
    const nextRun = new Date(res.body.next_run);
    expect(nextRun.getUTCDay()).toBe(1); // Monday
    expect(nextRun.getTime()).toBeGreaterThan(before.getTime());
    expect(nextRun.getTime()).toBeLessThanOrEqual(before.getTime() + 7 * 24 * HOUR);
    expectNextRun(res.body.next_run, { frequency: 'weekly', hour: 8, dayOfWeek: 0 }, before, after);
  });

  it('refuses a URL the crawler may not fetch up front (400, no schedule)', async () => {
    for (const [url, reason] of [
      ['http://10.0.0.8/', '10.0.0.8 is a private address'],
      ['http://169.254.169.254/', '169.254.169.254 is a cloud metadata address'],
    ]) {
      const res = await t.request('POST', '/api/automation/schedules', { key: t.ownerKey, body: { url, name: 'nope' } });
      expect(res.status, url).toBe(400);
      expect(res.body.error).toBe(`url: refused: ${reason}`);
    }
  });

  it('computes next_run for daily, weekly and monthly schedules', async () => {
    const before = new Date();
    const daily = await create(t.ownerKey, { url: `${site.url}/`, name: 'd', schedule: 'daily', hour: 23 });
    const weekly = await create(t.ownerKey, { url: `${site.url}/`, name: 'w', schedule: 'weekly', hour: 0, day_of_week: 6 });
    const monthly = await create(t.ownerKey, { url: `${site.url}/`, name: 'm', schedule: 'monthly', hour: 5, max_files: 7, sniper_mode: false, ai_labeling: true });
    const after = new Date();
    expectNextRun(daily.next_run, { frequency: 'daily', hour: 23 }, before, after);
    expect(new Date(daily.next_run).getTime() - before.getTime()).toBeLessThanOrEqual(24 * HOUR);
    expectNextRun(weekly.next_run, { frequency: 'weekly', hour: 0, dayOfWeek: 6 }, before, after);
    expect(new Date(weekly.next_run).getUTCDay()).toBe(0); // Sunday
    expectNextRun(monthly.next_run, { frequency: 'monthly', hour: 5 }, before, after);
    expect(monthly.next_run).toMatch(/-01T05:00:00\.000Z$/);
    expect(monthly).toMatchObject({ schedule: 'monthly', day_of_week: null, max_files: 7, sniper_mode: false, ai_labeling: true });
    expect(daily.day_of_week).toBeNull();
  });

  it.each([
    [{ name: 'x' }, 'url', /^url is required/],
    [{ url: 'ftp://example.org/', name: 'x' }, 'url', /^url: expected an absolute http or https URL/],
    [{ url: 'https://example.org/' }, 'name', /^name is required/],
    [{ url: 'https://example.org/', name: 'x', hour: 24 }, 'hour', /^hour: expected an integer from 0 to 23/],
    [{ url: 'https://example.org/', name: 'x', hour: -1 }, 'hour', /^hour: /],
    [{ url: 'https://example.org/', name: 'x', hour: 7.5 }, 'hour', /^hour: expected an integer/],
    [{ url: 'https://example.org/', name: 'x', day_of_week: 7 }, 'day_of_week', /^day_of_week: expected an integer from 0 \(Monday\) to 6 \(Sunday\)/],
    [{ url: 'https://example.org/', name: 'x', schedule: 'hourly' }, 'schedule', /^schedule: expected daily, weekly or monthly/],
    [{ url: 'https://example.org/', name: 'x', schedule: 'daily', day_of_week: 2 }, 'day_of_week', /^day_of_week applies to weekly schedules only/],
    [{ url: 'https://example.org/', name: 'x', schedule: 'monthly', day_of_week: 0 }, 'day_of_week', /^day_of_week applies to weekly schedules only/],
    [{ url: 'https://example.org/', name: 'x', max_files: 0 }, 'max_files', /^max_files: expected at least 1/],
    [{ url: 'https://example.org/', name: 'x', sniper_mode: 'yes' }, 'sniper_mode', /^sniper_mode: /],
  ])('refuses %j with 400 naming %s', async (body, _field, message) => {
    const res = await t.request('POST', '/api/automation/schedules', { key: t.ownerKey, body });
    expect(res.status, res.text).toBe(400);
    expect(res.body).toEqual({ success: false, error: expect.stringMatching(message) });
  });
});

describe('listing, toggling and deleting', () => {
  it('toggles a schedule off (no next run) and on again (a fresh next run from now)', async () => {
    const { key } = await t.createAccount('sched');
    const created = await create(key, { url: `${site.url}/`, name: 'toggle me', schedule: 'daily', hour: 3 });
    // Pretend it has been due for a while: enabling again must not fire the stale run.
    await t.app.services.db.prisma.schedule.update({ where: { id: created.schedule_id }, data: { nextRunAt: new Date(Date.now() - 5 * 24 * HOUR) } });

    const off = await t.request('POST', `/api/automation/schedules/${created.schedule_id}/toggle`, { key });
    expect(off.status, off.text).toBe(200);
    expect(off.body).toMatchObject({ success: true, schedule_id: created.schedule_id, enabled: false, next_run: null });
    expect(Object.keys(off.body).slice(0, 4)).toEqual(['success', 'schedule_id', 'enabled', 'next_run']);

    const before = new Date();
    const on = await t.request('POST', `/api/automation/schedules/${created.schedule_id}/toggle`, { key });
    expect(on.body).toMatchObject({ enabled: true });
    expectNextRun(on.body.next_run, { frequency: 'daily', hour: 3 }, before, new Date());

    // An explicit value is idempotent.
    const still = await t.request('POST', `/api/automation/schedules/${created.schedule_id}/toggle`, { key, body: { enabled: true } });
    expect(still.body).toMatchObject({ enabled: true, next_run: on.body.next_run });
    const disabled = await t.request('POST', `/api/automation/schedules/${created.schedule_id}/toggle`, { key, body: { enabled: false } });
    expect(disabled.body.enabled).toBe(false);

    const refused = await t.request('POST', `/api/automation/schedules/${created.schedule_id}/toggle`, { key, body: { enabled: 'maybe' } });
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body.error).toBe('enabled: expected true or false (or 1 or 0)');
  });

  it('lists, deletes, and answers 404 for another account or a missing id', async () => {
    const alice = await t.createAccount('alice');
    const bob = await t.createAccount('bob');
    const a1 = await create(alice.key, { url: `${site.url}/`, name: 'a1' });
    const a2 = await create(alice.key, { url: `${site.url}/gallery/1`, name: 'a2' });
    await create(bob.key, { url: `${site.url}/`, name: 'b1' });

    const list = await t.request('GET', '/api/automation/schedules', { key: alice.key });
    expect(list.body.total).toBe(2);
    expect(list.body.schedules.map((s: { id: number }) => s.id)).toEqual([a2.schedule_id, a1.schedule_id]);
    expect(list.body.schedules[1]).toMatchObject({ id: a1.schedule_id, name: 'a1', schedule: 'weekly', next_run: a1.next_run });

    for (const [method, path] of [
      ['POST', `/api/automation/schedules/${a1.schedule_id}/toggle`],
      ['DELETE', `/api/automation/schedules/${a1.schedule_id}`],
    ] as const) {
      const res = await t.request(method, path, { key: bob.key });
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    const node = await t.graphql('query($id: Int!) { schedule(id: $id) { name } }', { id: a1.schedule_id }, { key: bob.key });
    expect(node.body.errors[0].extensions).toMatchObject({ code: 'NOT_FOUND' });

    const deleted = await t.request('DELETE', `/api/automation/schedules/${a1.schedule_id}`, { key: alice.key });
    expect(deleted.body).toEqual({ success: true, deleted: true, schedule_id: a1.schedule_id });
    expect((await t.request('DELETE', `/api/automation/schedules/${a1.schedule_id}`, { key: alice.key })).status).toBe(404);
    expect((await t.request('POST', `/api/automation/schedules/${a1.schedule_id}/toggle`, { key: alice.key })).status).toBe(404);
    const after = await t.request('GET', '/api/automation/schedules', { key: alice.key });
    expect(after.body.schedules.map((s: { id: number }) => s.id)).toEqual([a2.schedule_id]);
  });

  it('is a connection of relay nodes in GraphQL', async () => {
    const { key } = await t.createAccount('gql');
    const created = await create(key, { url: `${site.url}/`, name: 'graph', schedule: 'monthly' });
    const res = await t.graphql('{ viewer { schedules { totalCount edges { node { id databaseId frequency nextRunAt enabled } } } } }', {}, { key });
    const node = res.body.data.viewer.schedules.edges[0].node;
    expect(node).toMatchObject({ databaseId: created.schedule_id, frequency: 'monthly', nextRunAt: created.next_run, enabled: true });
    const byId = await t.graphql('query($id: ID!) { node(id: $id) { ... on Schedule { name } } }', { id: node.id }, { key });
    expect(byId.body.data.node).toEqual({ name: 'graph' });
    const other = await t.createAccount('gql');
    const hidden = await t.graphql('query($id: ID!) { node(id: $id) { id } }', { id: node.id }, { key: other.key });
    expect(hidden.body.data?.node ?? null).toBeNull();
  });
});

describe('the scheduler', () => {
  async function jobsOf(accountId: number) {
    return t.app.services.db.prisma.job.findMany({ where: { accountId }, orderBy: { id: 'asc' } });
  }

  it('runs a due schedule exactly once when ticks race, collapsing missed runs, and moves next_run forward', async () => {
    const account = await t.createAccount('due');
    const created = await create(account.key, { url: `${site.url}/gallery/3`, name: 'nightly', schedule: 'daily', hour: 2, max_files: 5, sniper_mode: true, ai_labeling: false });
    // Down for three days: three occurrences were missed.
    const due = new Date(Date.now() - 3 * 24 * HOUR);
    await t.app.services.db.prisma.schedule.update({ where: { id: created.schedule_id }, data: { nextRunAt: due } });

    const started = await Promise.all(Array.from({ length: 8 }, () => t.app.services.schedules.tick()));
    expect(started.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(1); // the background loop may have won it
    await t.app.services.schedules.tick();

    const jobs = await jobsOf(account.id);
    expect(jobs).toHaveLength(1);
    expect(jobs[0]).toMatchObject({ kind: 'scrape', input: expect.objectContaining({ url: `${site.url}/gallery/3`, max_files: 5, sniper_mode: true, ai_labeling: false }) });
    const done = await waitForJob(t, account.key, jobs[0]!.id);
    expect(done.body.status).toBe('completed');

    const list = await t.request('GET', '/api/automation/schedules', { key: account.key });
    const schedule = list.body.schedules[0];
    expect(schedule).toMatchObject({ last_job_id: jobs[0]!.id, run_count: 1, last_error: null, enabled: true });
    expect(new Date(schedule.next_run).getTime()).toBeGreaterThan(Date.now());
    expect(new Date(schedule.next_run).getTime()).toBeLessThanOrEqual(Date.now() + 24 * HOUR);
    expect(schedule.next_run).toMatch(/T02:00:00\.000Z$/);
    expect(new Date(schedule.last_run_at).getTime()).toBeGreaterThan(due.getTime());
  });

  // Creating it needs Chromium (503 without: test/featured/featured-render.test.ts).
  it.runIf(chromiumAvailable)('passes render to the scrape job of each run: true renders, false never does, left out (null) leaves it to RENDER_AUTO', async () => {
    const account = await t.createAccount('rendered');
    const created = await create(account.key, { url: `${site.url}/gallery/3`, name: 'rendered', schedule: 'daily', render: true });
    expect(created.render).toBe(true);
    const never = await create(account.key, { url: `${site.url}/gallery/2`, name: 'never', schedule: 'daily', render: false });
    expect(never.render).toBe(false);
    const plain = await create(account.key, { url: `${site.url}/`, name: 'plain', schedule: 'daily' });
    expect(plain.render).toBeNull();
    const due = new Date(Date.now() - HOUR);
    await t.app.services.db.prisma.schedule.updateMany({ where: { accountId: account.id }, data: { nextRunAt: due } });
    await t.app.services.schedules.tick();
    const jobs = await jobsOf(account.id);
    const renderOf = (input: unknown) => ('render' in (input as object) ? (input as { render: boolean }).render : 'left out');
    expect(jobs.map((job) => [(job.input as { url: string }).url, renderOf(job.input)]).sort()).toEqual([
      [`${site.url}/`, 'left out'],
      [`${site.url}/gallery/2`, false],
      [`${site.url}/gallery/3`, true],
    ]);
    for (const job of jobs) expect((await waitForJob(t, account.key, job.id, 60_000)).body.status).toBe('completed');
    const listed = await t.request('GET', '/api/automation/schedules', { key: account.key });
    expect(listed.body.schedules.map((s: { name: string; render: boolean | null }) => [s.name, s.render]).sort()).toEqual([['never', false], ['plain', null], ['rendered', true]]);
  });

  it('leaves schedules alone that are not due or disabled', async () => {
    const account = await t.createAccount('idle');
    const future = await create(account.key, { url: `${site.url}/`, name: 'later' });
    const off = await create(account.key, { url: `${site.url}/`, name: 'off' });
    await t.request('POST', `/api/automation/schedules/${off.schedule_id}/toggle`, { key: account.key });
    await t.app.services.db.prisma.schedule.update({ where: { id: off.schedule_id }, data: { nextRunAt: new Date(Date.now() - HOUR) } });
    await Promise.all([t.app.services.schedules.tick(), t.app.services.schedules.tick()]);
    expect(await jobsOf(account.id)).toHaveLength(0);
    const list = await t.request('GET', '/api/automation/schedules', { key: account.key });
    expect(list.body.schedules.find((s: { id: number }) => s.id === future.schedule_id).next_run).toBe(future.next_run);
  });

  it('loses no run to a failure between the claim and the job row: both roll back, and the next tick runs it once', async () => {
    const account = await t.createAccount('crashy');
    const created = await create(account.key, { url: `${site.url}/gallery/3`, name: 'crash test', schedule: 'daily', sniper_mode: true });
    const due = new Date(Date.now() - HOUR);
    await t.app.services.db.prisma.schedule.update({ where: { id: created.schedule_id }, data: { nextRunAt: due } });
    const { jobs } = t.app.services;
    const createIn = jobs.createIn.bind(jobs);
    // A stand-in for the process dying (or the database connection dropping) after the claim.
    jobs.createIn = async () => {
      throw new Error('connection lost');
    };
    try {
      await expect(t.app.services.schedules.tick()).rejects.toThrow('connection lost');
    } finally {
      jobs.createIn = createIn;
    }
    const rolledBack = await t.app.services.db.prisma.schedule.findUniqueOrThrow({ where: { id: created.schedule_id } });
    expect(rolledBack).toMatchObject({ nextRunAt: due, runCount: 0, lastJobId: null });
    expect(await jobsOf(account.id)).toHaveLength(0);

    await t.app.services.schedules.tick();
    await t.app.services.schedules.tick();
    const runs = await jobsOf(account.id);
    expect(runs).toHaveLength(1);
    const row = await t.app.services.db.prisma.schedule.findUniqueOrThrow({ where: { id: created.schedule_id } });
    expect(row).toMatchObject({ runCount: 1, lastJobId: runs[0]!.id, lastError: null });
  });

  it('uses up a run whose stored options the scrape refuses, with the reason and no job', async () => {
    const account = await t.createAccount('badopts');
    const created = await create(account.key, { url: `${site.url}/`, name: 'broken', schedule: 'daily' });
    // Written behind the API's back (an older version's row, say): the scrape's validation refuses it.
    await t.app.services.db.prisma.schedule.update({ where: { id: created.schedule_id }, data: { url: 'not a url', nextRunAt: new Date(Date.now() - HOUR) } });
    expect(await t.app.services.schedules.tick()).toBe(0);
    expect(await jobsOf(account.id)).toHaveLength(0);
    const row = await t.app.services.db.prisma.schedule.findUniqueOrThrow({ where: { id: created.schedule_id } });
    expect(row.lastError).toMatch(/^run failed to start: .*url/);
    expect(row.runCount).toBe(1);
    expect(row.nextRunAt!.getTime()).toBeGreaterThan(Date.now());
  });

  it('still runs a claimed run whose queue hand-off failed: the job row is queued and workers find it', async () => {
    const account = await t.createAccount('queueless');
    const created = await create(account.key, { url: `${site.url}/gallery/3`, name: 'enqueue fails', schedule: 'daily', sniper_mode: true });
    await t.app.services.db.prisma.schedule.update({ where: { id: created.schedule_id }, data: { nextRunAt: new Date(Date.now() - HOUR) } });
    const { queue } = t.app.services;
    const enqueue = queue.enqueue.bind(queue);
    queue.enqueue = async () => {
      throw new Error('queue unavailable');
    };
    let started: number;
    try {
      started = await t.app.services.schedules.tick();
    } finally {
      queue.enqueue = enqueue;
    }
    const runs = await jobsOf(account.id);
    expect(started + runs.length).toBeGreaterThanOrEqual(1);
    expect(runs).toHaveLength(1);
    const done = await waitForJob(t, account.key, runs[0]!.id);
    expect(done.body.status).toBe('completed');
  });

  it("skips the run of a suspended account's schedule, and still moves it forward", async () => {
    const account = await t.createAccount('suspended');
    const created = await create(account.key, { url: `${site.url}/`, name: 'paused account', schedule: 'daily' });
    await t.app.services.db.prisma.schedule.update({ where: { id: created.schedule_id }, data: { nextRunAt: new Date(Date.now() - HOUR) } });
    await t.request('POST', `/api/admin/accounts/${account.handle}/suspend`, { admin: true });
    await t.app.services.schedules.tick();
    expect(await jobsOf(account.id)).toHaveLength(0);
    const row = await t.app.services.db.prisma.schedule.findUniqueOrThrow({ where: { id: created.schedule_id } });
    expect(row.lastError).toBe('run skipped: the account is suspended');
    expect(row.nextRunAt!.getTime()).toBeGreaterThan(Date.now());
  });
});
