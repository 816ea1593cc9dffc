// What the bot tests share: Telegram's flood spacing shortened (the throttler stays in the chain),
// so a test's many messages to one chat do not wait a second each.
import type { TelegramRuntimeOptions } from '../../src/modules/bot/index.js';

export const FAST_THROTTLE: NonNullable<TelegramRuntimeOptions['throttle']> = {
  global: { reservoir: 1_000, reservoirRefreshAmount: 1_000, reservoirRefreshInterval: 1_000 },
  group: { maxConcurrent: 4, minTime: 0 },
  out: { maxConcurrent: 4, minTime: 0 },
};
