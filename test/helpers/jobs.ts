import type { TestApp, TestResponse } from './app.js';

/** Polls GET /api/jobs/{id} like a client would, until the job completes or fails. */
export async function waitForJob(t: TestApp, key: string, jobId: number, timeoutMs = 20_000): Promise<TestResponse> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await t.request('GET', `/api/jobs/${jobId}`, { key });
    if (res.body?.status === 'completed' || res.body?.status === 'failed') return res;
    if (Date.now() > deadline) throw new Error(`job ${jobId} still ${res.body?.status} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
