// Webhook event types, payloads and signatures (spec "Events"; the names, the body shape and the
// signature encoding are ours and documented in docs/rest-api.md "Automation: webhooks").
import { createHmac, randomUUID } from 'node:crypto';
import type { Job } from '../jobs/index.js';

/** Event types a webhook can subscribe to; omitting `events` subscribes to all of them. */
export const WEBHOOK_EVENTS = ['job.completed', 'job.failed'] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];
/** Sent only by POST /api/automation/webhooks/test. */
export const TEST_EVENT = 'webhook.test';

export const SIGNATURE_HEADER = 'X-Service-Signature';
export const DELIVERY_HEADER = 'X-Service-Delivery';
export const EVENT_HEADER = 'X-Service-Event';
export const TIMESTAMP_HEADER = 'X-Service-Timestamp';

export function isWebhookEvent(value: string): value is WebhookEvent {
  return (WEBHOOK_EVENTS as readonly string[]).includes(value);
}

export interface JobEventData {
  job_id: number;
  kind: string;
  status: string;
  assets_count: number;
  error: string | null;
  poll_url: string;
  finished_at: string | null;
}

export interface Envelope<T> {
  id: string;
  type: string;
  created_at: string;
  data: T;
}

/** A payload with a fresh delivery id; the JSON text is what is sent (and signed) on every attempt. */
export function envelope<T>(type: string, data: T, now = new Date()): { id: string; body: string } {
  const id = randomUUID();
  const payload: Envelope<T> = { id, type, created_at: now.toISOString(), data };
  return { id, body: JSON.stringify(payload) };
}

export function jobEventType(job: Pick<Job, 'state'>): WebhookEvent | null {
  if (job.state === 'completed') return 'job.completed';
  if (job.state === 'failed') return 'job.failed';
  return null;
}

export function jobEventData(job: Job, assetsCount: number, publicBaseUrl?: string): JobEventData {
  return {
    job_id: job.id,
    kind: job.kind,
    status: job.state,
    assets_count: assetsCount,
    error: job.error,
    poll_url: `${publicBaseUrl ?? ''}/api/jobs/${job.id}`,
    finished_at: job.finishedAt?.toISOString() ?? null,
  };
}

/** Hex HMAC-SHA256 of the exact body bytes, keyed with the webhook's secret. */
export function sign(secret: string, body: string): string {
  return createHmac('sha256', secret).update(body, 'utf8').digest('hex');
}

export function deliveryHeaders(delivery: { id: string; event: string; body: string; secret: string | null }, now = new Date()): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    [DELIVERY_HEADER]: delivery.id,
    [EVENT_HEADER]: delivery.event,
    [TIMESTAMP_HEADER]: String(Math.floor(now.getTime() / 1000)),
  };
  if (delivery.secret) headers[SIGNATURE_HEADER] = sign(delivery.secret, delivery.body);
  return headers;
}
