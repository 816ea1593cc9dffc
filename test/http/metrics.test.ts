// GET /metrics: Prometheus text for the operator (admin token), with requests counted by route
// pattern (never the raw path), jobs by state, webhook deliveries, providers and ledger totals.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_SCRAPES, startTestApp, type TestApp } from '../helpers/app.js';
import { waitForJob } from '../helpers/jobs.js';
import { startFixtureSite, type FixtureSite } from '../fixtures/site.js';
import { ADMIN_TOKEN_REQUIRED_MESSAGE } from '../../src/modules/access/index.js';

let t: TestApp;
let site: FixtureSite;

beforeAll(async () => {
  site = await startFixtureSite();
  t = await startTestApp(LOCAL_SCRAPES);
});
afterAll(async () => {
  await t.stop();
  await site.close();
});

/** The value of one sample line: `name{labels} value`, labels in prom-client's order. */
function sample(text: string, name: string, labels: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}} `));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('GET /metrics', () => {
  it('refuses without the admin token, and with a wrong one (401)', async () => {
    const none = await t.request('GET', '/metrics');
    expect(none.status).toBe(401);
    expect(none.body.error).toBe(ADMIN_TOKEN_REQUIRED_MESSAGE);
    expect((await t.request('GET', '/metrics', { headers: { 'X-Admin-Token': 'wrong' } })).status).toBe(401);
    // An API key is not the admin token.
    expect((await t.request('GET', '/metrics', { key: t.ownerKey })).status).toBe(401);
  });

  it('counts requests by route pattern and status, with latencies, and reads jobs, deliveries and the ledger at scrape time', async () => {
    const started = await t.request('POST', '/api/scrape', { key: t.ownerKey, body: { url: `${site.url}/gallery/3` } });
    expect(started.status).toBe(202);
    const jobId = started.body.job_id as number;
    expect((await waitForJob(t, t.ownerKey, jobId)).body.status).toBe('completed');
    expect((await t.request('GET', '/api/jobs/999999', { key: t.ownerKey })).status).toBe(404);
    expect((await t.request('GET', '/no/such/place/12345')).status).toBe(404);

    const res = await t.request('GET', '/metrics', { headers: { Authorization: `Bearer test-admin-token-0123456789` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = res.text;
    for (const name of ['http_requests_total', 'http_request_duration_seconds', 'jobs', 'job_queue_depth', 'webhook_deliveries', 'generation_provider_calls_total', 'generation_provider_circuit_state', 'ledger_posted_balance', 'process_cpu_user_seconds_total', 'nodejs_eventloop_lag_seconds']) {
      expect(text, name).toContain(`# TYPE ${name} `);
    }
    // The pattern, not the job's id: one series for every job id.
    expect(sample(text, 'http_requests_total', 'method="POST",route="/api/scrape",status="202"')).toBe(1);
    expect(sample(text, 'http_requests_total', `method="GET",route="/api/jobs/:job_id",status="404"`)).toBe(1);
    expect(sample(text, 'http_requests_total', 'method="GET",route="unmatched",status="404"')).toBe(1);
    expect(text).not.toMatch(/route="[^"]*999999/);
    expect(text).not.toMatch(/route="[^"]*12345/);
    expect(sample(text, 'http_request_duration_seconds_count', 'method="POST",route="/api/scrape"')).toBe(1);
    expect(sample(text, 'jobs', 'state="completed"')).toBeGreaterThanOrEqual(1);
    expect(text).toMatch(/^job_queue_depth \d+$/m);
    expect(text).toMatch(/^ledger_posted_balance\{currency="(coins|credits)",holder="(accounts|system)"\} -?\d+$/m);
  });

  it('counts generation provider calls by outcome and shows each circuit state', async () => {
    const chain = t.app.services.generation.chain;
    chain.onCall?.('pollinations', 'failed');
    const text = (await t.request('GET', '/metrics', { admin: true })).text;
    expect(sample(text, 'generation_provider_calls_total', 'provider="pollinations",outcome="failed"')).toBe(1);
    for (const { name, state } of chain.states()) expect(sample(text, 'generation_provider_circuit_state', `provider="${name}",state="${state}"`)).toBe(1);
  });
});
