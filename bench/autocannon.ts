// Load runs for the HTTP benchmarks: the autocannon CLI in a child process, so the load generator's
// CPU and memory never count against the service measured in the benchmark's own process.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';

const AUTOCANNON = createRequire(import.meta.url).resolve('autocannon/autocannon.js');

export interface LoadRequest {
  url: string;
  seconds: number;
  connections: number;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
}

export interface LoadResult {
  /** Requests per second (mean) and the latency percentiles in ms. */
  rps: number;
  p50: number;
  p99: number;
  max: number;
  requests: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  mbPerSecond: number;
}

interface AutocannonJson {
  requests: { mean: number; total: number };
  latency: { p50: number; p99: number; max: number };
  throughput: { mean: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}

export function autocannon(request: LoadRequest): Promise<LoadResult> {
  const args = [AUTOCANNON, '-j', '-n', '-c', String(request.connections), '-d', String(request.seconds), '-m', request.method ?? 'GET'];
  for (const [name, value] of Object.entries(request.headers ?? {})) args.push('-H', `${name}=${value}`);
  if (request.body !== undefined) args.push('-b', request.body);
  args.push(request.url);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => {
      if (code !== 0) return reject(new Error(`autocannon exited with ${code}: ${stderr}`));
      try {
        const json = JSON.parse(stdout) as AutocannonJson;
        resolve({
          rps: json.requests.mean,
          p50: json.latency.p50,
          p99: json.latency.p99,
          max: json.latency.max,
          requests: json.requests.total,
          non2xx: json.non2xx,
          errors: json.errors,
          timeouts: json.timeouts,
          mbPerSecond: json.throughput.mean / 1024 / 1024,
        });
      } catch (error) {
        reject(new Error(`autocannon printed no JSON (${(error as Error).message}): ${stdout.slice(0, 500)} ${stderr.slice(0, 500)}`));
      }
    });
  });
}
