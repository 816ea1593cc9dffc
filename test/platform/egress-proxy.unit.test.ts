// The egress proxy without a browser: raw CONNECT and absolute-form requests in the spellings the
// fetcher's tests use, aimed at loopback canaries outside the allowance (127.0.0.2 and [::1] while
// only 127.0.0.1 is allowed). Everything listens on loopback; the only name resolved is the test's
// own (a resolver the test controls), so nothing here leaves this machine.
import { once } from 'node:events';
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import type { LookupAddress } from 'node:dns';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EgressProxy } from '../../src/platform/http/egress-proxy.js';
import type { Resolver } from '../../src/platform/http/address-policy.js';

interface Canary {
  server: Server;
  port: number;
  connections: number;
}

const servers: Server[] = [];

async function listen(host: string, port = 0, body = 'ok'): Promise<Canary> {
  const server = createServer((_req, res) => res.end(body));
  const canary: Canary = { server, port: 0, connections: 0 };
  server.on('connection', () => canary.connections++);
  server.listen(port, host);
  await once(server, 'listening');
  canary.port = (server.address() as AddressInfo).port;
  servers.push(server);
  return canary;
}

/** Sends one CONNECT through the proxy; resolves with the proxy's status line. */
async function connectThrough(proxy: EgressProxy, authority: string): Promise<string> {
  const socket = net.connect(Number(new URL(proxy.url).port), '127.0.0.1');
  await once(socket, 'connect');
  socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`);
  const [chunk] = (await once(socket, 'data')) as [Buffer];
  socket.destroy();
  return chunk.toString('latin1').split('\r\n')[0]!;
}

/** A plain-http request in absolute form through the proxy; resolves with status and body. */
async function getThrough(proxy: EgressProxy, url: string): Promise<{ status: number; body: string }> {
  const { port } = new URL(proxy.url);
  const req = request({ host: '127.0.0.1', port, path: url, headers: { host: new URL(url).host } });
  req.end();
  const [res] = (await once(req, 'response')) as [IncomingMessage];
  let body = '';
  for await (const chunk of res) body += String(chunk);
  return { status: res.statusCode!, body };
}

let allowed: Canary;
let v4: Canary;
let v6: Canary;
let rebound: Canary;
let proxy: EgressProxy;
let answers: string[][];
const lookups: string[] = [];

beforeAll(async () => {
  allowed = await listen('127.0.0.1', 0, 'allowed');
  v4 = await listen('127.0.0.2');
  v6 = await listen('::1');
  // The rebinding name's second answer: the canary on the same port as the allowed server.
  rebound = await listen('127.0.0.2', allowed.port);
  answers = [];
  const resolve: Resolver = (hostname, _options, callback) => {
    lookups.push(hostname);
    const next = answers.shift() ?? ['127.0.0.2'];
    callback(null, next.map((address): LookupAddress => ({ address, family: address.includes(':') ? 6 : 4 })));
  };
  proxy = await EgressProxy.listen({ allowPrivateAddresses: ['127.0.0.1'], resolve });
});

afterAll(async () => {
  await proxy.close();
  for (const server of servers) {
    server.closeAllConnections();
    server.close();
  }
});

describe('EgressProxy', () => {
  it('tunnels and forwards to the allowed address', async () => {
    expect(await connectThrough(proxy, `127.0.0.1:${allowed.port}`)).toBe('HTTP/1.1 200 Connection Established');
    expect(await getThrough(proxy, `http://127.0.0.1:${allowed.port}/x`)).toEqual({ status: 200, body: 'allowed' });
  });

  it.each([
    (p: number) => `127.0.0.2:${p}`,
    (p: number) => `2130706434:${p}`, // 127.0.0.2 as one number
    (p: number) => `0x7f.0.0.2:${p}`,
    (p: number) => `0177.0.0.02:${p}`,
    (p: number) => `127.2:${p}`,
    (p: number) => `[::ffff:127.0.0.2]:${p}`,
    (p: number) => `[::ffff:7f00:2]:${p}`,
  ])('refuses a CONNECT to 127.0.0.2 spelled %s', async (spell) => {
    const before = v4.connections;
    expect(await connectThrough(proxy, spell(v4.port))).toBe('HTTP/1.1 403 Forbidden');
    expect(v4.connections).toBe(before);
  });

  it.each([(p: number) => `[::1]:${p}`, (p: number) => `[0:0:0:0:0:0:0:1]:${p}`, (p: number) => `localhost:${p}`])('refuses a CONNECT to ::1 spelled %s', async (spell) => {
    expect(await connectThrough(proxy, spell(v6.port))).toBe('HTTP/1.1 403 Forbidden');
    expect(v6.connections).toBe(0);
  });

  it.each(['http://127.0.0.2:PORT/', 'http://0x7f000002:PORT/', 'http://[::ffff:127.0.0.2]:PORT/'])('refuses a forwarded request to %s', async (url) => {
    const before = v4.connections;
    expect((await getThrough(proxy, url.replace('PORT', String(v4.port)))).status).toBe(403);
    expect(v4.connections).toBe(before);
  });

  it('forwards nothing but http', async () => {
    expect((await getThrough(proxy, `ftp://127.0.0.1:${allowed.port}/`)).status).toBe(400);
  });

  it('judges a name by every answer, each time it connects: a rebinding name reaches the allowed address, then nothing', async () => {
    const before = rebound.connections;
    answers.push(['127.0.0.1']);
    expect(await getThrough(proxy, `http://rebind.test:${allowed.port}/`)).toEqual({ status: 200, body: 'allowed' });
    answers.push(['127.0.0.2']);
    expect((await getThrough(proxy, `http://rebind.test:${allowed.port}/`)).status).toBe(403);
    answers.push(['127.0.0.1', '127.0.0.2']); // one good answer does not carry a bad one
    expect(await connectThrough(proxy, `rebind.test:${allowed.port}`)).toBe('HTTP/1.1 403 Forbidden');
    expect(rebound.connections).toBe(before);
    expect(lookups.filter((name) => name === 'rebind.test')).toHaveLength(3);
  });

  it('cuts every connection once its byte budget is used up, and refuses new ones', async () => {
    const big = await listen('127.0.0.1', 0, 'x'.repeat(64 * 1024));
    const exhausted: string[] = [];
    const small = await EgressProxy.listen({ allowPrivateAddresses: ['127.0.0.1'], maxBytes: 1024, onExhausted: (what) => exhausted.push(what) });
    try {
      const outcome = await getThrough(small, `http://127.0.0.1:${big.port}/`).then(
        (r) => r.body.length,
        () => 'cut',
      );
      expect(outcome === 'cut' || (typeof outcome === 'number' && outcome < 64 * 1024)).toBe(true);
      expect(exhausted).toEqual(['bytes']);
      expect(await connectThrough(small, `127.0.0.1:${big.port}`)).toBe('HTTP/1.1 403 Forbidden');
    } finally {
      await small.close();
    }
  });

  it('refuses connections past its connection budget', async () => {
    const two = await EgressProxy.listen({ allowPrivateAddresses: ['127.0.0.1'], maxConnections: 2 });
    try {
      expect(await connectThrough(two, `127.0.0.1:${allowed.port}`)).toBe('HTTP/1.1 200 Connection Established');
      expect(await connectThrough(two, `127.0.0.1:${allowed.port}`)).toBe('HTTP/1.1 200 Connection Established');
      expect(await connectThrough(two, `127.0.0.1:${allowed.port}`)).toBe('HTTP/1.1 403 Forbidden');
      expect(two.exhaustedBy).toBe('connections');
    } finally {
      await two.close();
    }
  });
});
