// Signatures, payload envelopes, the retry schedule and its configuration, without a database.
import { describe, expect, it } from 'vitest';
import { deliveryHeaders, envelope, jobEventData, jobEventType, sign } from '../../src/modules/automation/webhook-events.js';
import { retryDelay } from '../../src/modules/automation/webhooks.service.js';
import { loadConfig } from '../../src/config.js';
import type { Job } from '../../src/modules/jobs/jobs.service.js';
import { signatureValid } from './receiver.js';

describe('signatures', () => {
  it('are the hex HMAC-SHA256 of the body keyed with the secret', () => {
    // RFC 4231-style known answer (the classic "quick brown fox" vector).
    expect(sign('key', 'The quick brown fox jumps over the lazy dog')).toBe('f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8');
  });

  it('go in X-Service-Signature only when there is a secret', () => {
    const body = '{"id":"x"}';
    const now = new Date('2026-05-01T00:00:00Z');
    const signed = deliveryHeaders({ id: 'd1', event: 'job.completed', body, secret: 's3cret' }, now);
    expect(signed).toEqual({
      'content-type': 'application/json',
      'X-Service-Delivery': 'd1',
      'X-Service-Event': 'job.completed',
      'X-Service-Timestamp': String(now.getTime() / 1000),
      'X-Service-Signature': sign('s3cret', body),
    });
    expect(signatureValid('s3cret', body, signed['X-Service-Signature'])).toBe(true);
    expect(signatureValid('s3cret', `${body} `, signed['X-Service-Signature'])).toBe(false);
    expect(deliveryHeaders({ id: 'd1', event: 'job.completed', body, secret: null }, now)['X-Service-Signature']).toBeUndefined();
  });
});

describe('payloads', () => {
  it('wrap data with a fresh id, the type and the time', () => {
    const a = envelope('job.completed', { n: 1 }, new Date('2026-05-01T10:00:00Z'));
    const b = envelope('job.completed', { n: 1 });
    expect(JSON.parse(a.body)).toEqual({ id: a.id, type: 'job.completed', created_at: '2026-05-01T10:00:00.000Z', data: { n: 1 } });
    expect(a.id).not.toBe(b.id);
  });

  it('describe a finished job', () => {
    const job = { id: 42, kind: 'scrape', state: 'failed', error: 'the page answered HTTP 404', finishedAt: new Date('2026-05-01T10:00:00Z') } as Job;
    expect(jobEventType(job)).toBe('job.failed');
    expect(jobEventType({ state: 'completed' })).toBe('job.completed');
    expect(jobEventType({ state: 'processing' })).toBeNull();
    expect(jobEventData(job, 0)).toEqual({ job_id: 42, kind: 'scrape', status: 'failed', assets_count: 0, error: 'the page answered HTTP 404', poll_url: '/api/jobs/42', finished_at: '2026-05-01T10:00:00.000Z' });
    expect(jobEventData(job, 0, 'https://img.example.org').poll_url).toBe('https://img.example.org/api/jobs/42');
  });
});

describe('retry schedule', () => {
  const delays = [10_000, 60_000, 300_000, 1_800_000, 7_200_000];

  it('waits the configured delay after each failed attempt, within 20 percent jitter', () => {
    expect(retryDelay(delays, 1, () => 0.5)).toBe(10_000);
    expect(retryDelay(delays, 1, () => 0)).toBe(8_000);
    expect(retryDelay(delays, 1, () => 1)).toBe(12_000);
    expect(retryDelay(delays, 5, () => 0.5)).toBe(7_200_000);
    for (let i = 0; i < 100; i++) {
      const d = retryDelay(delays, 3);
      expect(d).toBeGreaterThanOrEqual(240_000);
      expect(d).toBeLessThanOrEqual(360_000);
    }
  });

  it('is 10 s, 1 min, 5 min, 30 min, 2 h by default (6 attempts) and configurable with units', () => {
    expect(loadConfig({}).webhooks).toEqual({ allowHttp: false, timeoutMs: 10_000, retryDelaysMs: delays, pollMs: 1_000, perAccount: 25 });
    expect(loadConfig({ WEBHOOK_RETRY_SCHEDULE: '500ms, 2s,1m,1h,250' }).webhooks.retryDelaysMs).toEqual([500, 2_000, 60_000, 3_600_000, 250]);
    expect(loadConfig({ WEBHOOK_ALLOW_HTTP: 'true' }).webhooks.allowHttp).toBe(true);
    expect(() => loadConfig({ WEBHOOK_RETRY_SCHEDULE: '10 parsecs' })).toThrow(/WEBHOOK_RETRY_SCHEDULE/);
    expect(() => loadConfig({ WEBHOOK_ALLOW_HTTP: 'maybe' })).toThrow(/WEBHOOK_ALLOW_HTTP/);
  });
});
