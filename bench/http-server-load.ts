// bench/http-server.bench.ts's load generator, in a child process of its own so its CPU never counts
// against the server measured. Reads its job as JSON from argv[2]: `callers` loops GET `path` from
// `base` over a keep-alive connection each (undici's Pool) for `warmupSeconds`, then `seconds`
// measured. Prints `window-open` and `window-closed` around the measured window, then one JSON line.
import { Pool } from 'undici';

const job = JSON.parse(process.argv[2]!) as { base: string; path: string; callers: number; seconds: number; warmupSeconds: number };
const pool = new Pool(job.base, { connections: job.callers, pipelining: 1 });
const latencies: number[] = [];
let measuring = false;
let stop = false;
let failed = 0;

async function loop(): Promise<void> {
  while (!stop) {
    const started = performance.now();
    const response = await pool.request({ method: 'GET', path: job.path, headers: { accept: '*/*', 'accept-encoding': 'gzip, deflate', 'user-agent': 'node' } });
    await response.body.text();
    if (!measuring) continue;
    latencies.push(performance.now() - started);
    if (response.statusCode !== 200) failed++;
  }
}

const loops = Array.from({ length: job.callers }, loop);
await new Promise((resolve) => setTimeout(resolve, job.warmupSeconds * 1000));
process.stdout.write('window-open\n');
measuring = true;
await new Promise((resolve) => setTimeout(resolve, job.seconds * 1000));
measuring = false;
process.stdout.write('window-closed\n');
stop = true;
await Promise.all(loops);
await pool.close();
latencies.sort((a, b) => a - b);
if (failed > 0) throw new Error(`${failed} answers were not 200`);
process.stdout.write(`${JSON.stringify({ requests: latencies.length, p95: latencies[Math.floor(latencies.length * 0.95)] ?? 0 })}\n`);
