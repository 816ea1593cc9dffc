// The documented answer of a REST row that queues a job (202): its state, id, and where to poll it.
import { z } from 'zod';
import { answerFrom, id } from '../../platform/wire.js';
import { JOB_STATES } from './jobs.service.js';

/** `rest.response` and `rest.shape` of a declared operation answering with a queued Job (`what` names it in the message). */
export function queuedJobAnswer(what: string, pollNote = 'GET it to follow the job') {
  return {
    response: answerFrom(z.object({ status: z.enum(JOB_STATES), job_id: id, message: z.string(), poll_url: z.string().describe(pollNote) }), {
      status: 'state',
      job_id: 'databaseId',
      message: null,
      poll_url: null,
    }),
    shape: (answer: Record<string, unknown>) => {
      const poll = `/api/jobs/${String(answer.job_id)}`;
      return { ...answer, message: `${what} job queued; poll ${poll} every 2 to 5 seconds until its status is completed or failed`, poll_url: poll };
    },
  };
}
