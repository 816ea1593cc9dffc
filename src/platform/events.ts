// The pub/sub port behind GraphQL subscriptions. In-process by default (yoga's createPubSub); a
// Redis event target plugs in here when the service runs on several processes.
import { createPubSub } from 'graphql-yoga';

export interface SubKeyEvent {
  type: 'created' | 'revoked';
  subKeyId: number;
}

/** Topics are routed by account id so a subscriber only ever hears about its own account. */
export interface EventTopics {
  [topic: string]: [number, unknown];
  subKeyEvents: [accountId: number, event: SubKeyEvent];
}

export type EventBus = ReturnType<typeof createPubSub<EventTopics>>;

export function createEventBus(): EventBus {
  return createPubSub<EventTopics>();
}
