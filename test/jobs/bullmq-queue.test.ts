// The BullMQ adapter against a real Redis (REDIS_URL; .ci/run sets it): queued jobs whose message
// Redis lost (a restart without persistence) are found and sent again, and only those.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BullMqQueue } from '../../src/platform/queue/bullmq-queue.js';
import { createLogger } from '../../src/platform/logger.js';

const redisUrl = process.env.REDIS_URL;

describe.runIf(redisUrl)('BullMqQueue.resendMissing', () => {
  it('sends again exactly the queued jobs the queue holds no message for', async () => {
    // No workers: messages stay waiting, as on a queue whose workers are busy.
    const queue = new BullMqQueue(redisUrl!, async () => false, createLogger('silent'), { concurrency: 1, prefix: `resend-${randomBytes(4).toString('hex')}` });
    try {
      await queue.enqueue(1);
      expect(await queue.resendMissing([1, 2, 3])).toEqual([2, 3]);
      expect(await queue.resendMissing([1, 2, 3])).toEqual([]);
      expect(await queue.resendMissing([])).toEqual([]);
    } finally {
      await queue.stop();
    }
  });
});
