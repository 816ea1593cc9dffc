// The pub/sub port behind GraphQL subscriptions. In-process by default (yoga's createPubSub); a
// Redis event target plugs in here when the service runs on several processes.
import { createPubSub } from 'graphql-yoga';
import { createRedisEventTarget } from '@graphql-yoga/redis-event-target';
import { Redis } from 'ioredis';

export interface SubKeyEvent {
  type: 'created' | 'revoked';
  subKeyId: number;
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
export function createEventBus(redisUrl?: string, namespace = 'image-service'): EventBusHandle {
  if (!redisUrl) return { bus: createPubSub<EventTopics>(), close: async () => {} };
  const publishClient = new Redis(redisUrl, { maxRetriesPerRequest: null });
  const subscribeClient = new Redis(redisUrl, { maxRetriesPerRequest: null });
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
