// The background duties of automation: the webhook deliverer and the scheduler, each a loop that
// runs its task, waits `intervalMs`, and runs it again (never two rounds of one loop at once).
// Started by core.startBackground in processes that run workers.
import type { Logger } from '../../platform/logger.js';
import type { WebhooksService } from './webhooks.service.js';
import type { SchedulesService } from './schedules.service.js';

export interface Loop {
  /** Stops the loop and waits for a round in progress to end. */
  stop(): Promise<void>;
}

export function startLoop(task: () => Promise<unknown>, intervalMs: number, onError: (error: unknown) => void): Loop {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let round: Promise<void> = Promise.resolve();
  const run = () => {
    round = task()
      .then(
        () => undefined,
        (error: unknown) => onError(error),
      )
      .then(() => {
        if (stopped) return;
        timer = setTimeout(run, intervalMs);
        timer.unref();
      });
  };
  run();
  return {
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await round;
    },
  };
}

export function startAutomation(
  services: { webhooks: WebhooksService; schedules: SchedulesService },
  options: { deliverPollMs: number; schedulerPollMs: number },
  logger: Logger,
): Loop {
  const loops = [
    startLoop(() => services.webhooks.deliverDue(), options.deliverPollMs, (error) => logger.warn({ err: error }, 'sending webhook deliveries failed')),
    startLoop(() => services.schedules.tick(), options.schedulerPollMs, (error) => logger.warn({ err: error }, 'running due schedules failed')),
  ];
  return {
    stop: async () => {
      await Promise.all(loops.map((loop) => loop.stop()));
    },
  };
}
