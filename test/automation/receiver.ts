// A webhook receiver on 127.0.0.1 for tests: records every request (headers and raw body) and
// answers with the statuses it is told to, in order (200 once the list runs out).
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHmac, timingSafeEqual } from 'node:crypto';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
  at: number;
}

export interface Receiver {
  url: string;
  requests: ReceivedRequest[];
  /** Statuses for the next requests to `path` (all paths when omitted), then 200. */
  respond(statuses: number[], path?: string): void;
  /** Resolves once `count` requests to `path` (any path when omitted) have arrived. */
  waitFor(count: number, path?: string, timeoutMs?: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

/** What a receiver does with X-Service-Signature: HMAC-SHA256 of the raw body, hex, compared in constant time. */
export function signatureValid(secret: string, body: string, header: string | string[] | undefined): boolean {
  if (typeof header !== 'string' || !/^[0-9a-f]{64}$/.test(header)) return false;
  const expected = createHmac('sha256', secret).update(body).digest();
  return timingSafeEqual(expected, Buffer.from(header, 'hex'));
}

export async function startReceiver(): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const plans = new Map<string, number[]>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      const body = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      requests.push({ method: req.method ?? '', path, headers: req.headers, body, json, at: Date.now() });
      const plan = plans.get(path) ?? plans.get('*');
      const status = plan?.shift() ?? 200;
      res.writeHead(status, { 'Content-Type': 'text/plain' }).end(status < 300 ? 'ok' : 'nope');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const matching = (path?: string) => requests.filter((r) => path === undefined || r.path === path);
  return {
    url,
    requests,
    respond: (statuses, path = '*') => void plans.set(path, [...statuses]),
    waitFor: async (count, path, timeoutMs = 15_000) => {
      const deadline = Date.now() + timeoutMs;
      while (matching(path).length < count) {
        if (Date.now() > deadline) throw new Error(`the receiver got ${matching(path).length} of ${count} requests to ${path ?? 'any path'}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return matching(path);
    },
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
