// The pub/sub port behind GraphQL subscriptions. In-process by default (yoga's createPubSub); a
// Redis event target plugs in here when the service runs on several processes. The pub/sub comes
// from yoga's own subscription package, so worker processes need not load the GraphQL server.
import { createPubSub } from '@graphql-yoga/subscription';

export interface SubKeyEvent {
  type: 'created' | 'revoked';
  subKeyId: number;
}

/** What a follower of a wiki subject hears (src/modules/wiki/follows.service.ts). */
export interface SubjectEventPayload {
  type: 'photo_verified' | 'proposal_merged';
  subjectId: number;
  photoId: number | null;
  itemId: number | null;
  postId: number | null;
}

/** An account's keys or status changed: watchers of its keys look again (src/modules/accounts/key-watch.ts). */
export interface KeyChange {
  accountId: number;
}

export interface JobUpdate {
  jobId: number;
  state: 'queued' | 'processing' | 'completed' | 'failed';
}

/**
 * Topics are routed by an id: account events by account id (a subscriber only hears of its own
 * account), job updates by job id (the subscription checks ownership before listening).
 */
export interface EventTopics {
  [topic: string]: [number, unknown];
  subKeyEvents: [accountId: number, event: SubKeyEvent];
  jobUpdates: [jobId: number, update: JobUpdate];
  subjectEvents: [accountId: number, event: SubjectEventPayload];
  keyChanges: [accountId: number, change: KeyChange];
}

export type EventBus = ReturnType<typeof createPubSub<EventTopics>>;

export interface EventBusHandle {
  bus: EventBus;
  close(): Promise<void>;
}

/**
 * In-process by default; through Redis when a URL is given, so every process sees every event.
 * Redis channels carry the namespace, so several deployments (or test runs) can share one Redis.
 */
export async function createEventBus(redisUrl?: string, namespace = 'image-service', onError: (error: Error) => void = () => {}): Promise<EventBusHandle> {
  if (!redisUrl) return { bus: createPubSub<EventTopics>(), close: async () => {} };
  // Loaded only with Redis configured: a single process never needs them.
  const [{ createRedisEventTarget }, { Redis }] = await Promise.all([import('@graphql-yoga/redis-event-target'), import('ioredis')]);
  // Reconnects within a second of Redis returning; a connection error is logged by the caller
  // (without a listener ioredis prints each one as an unhandled stack trace).
  const options = { maxRetriesPerRequest: null, retryStrategy: (attempt: number) => Math.min(attempt * 100, 1000) };
  const publishClient = new Redis(redisUrl, options);
  const subscribeClient = new Redis(redisUrl, options);
  publishClient.on('error', onError);
  subscribeClient.on('error', onError);
  const inner = createPubSub<Record<string, [number, unknown]>>({ eventTarget: createRedisEventTarget({ publishClient, subscribeClient }) });
  const bus = {
    publish: (topic: string, id: number, payload: unknown) => inner.publish(`${namespace}:${topic}`, id, payload),
    subscribe: (topic: string, id: number) => inner.subscribe(`${namespace}:${topic}`, id),
  } as unknown as EventBus;
  return {
    bus,
    close: async () => {
      publishClient.disconnect();
      subscribeClient.disconnect();
    },
  };
}
