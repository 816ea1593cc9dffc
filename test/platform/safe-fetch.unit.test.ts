// SafeFetcher against real HTTP servers on loopback. Nothing here reaches a non-loopback address or
// a DNS server: public addresses are only ever handed to the policy functions, and the one name
// resolved for real is `localhost` (answered from /etc/hosts).
import { EventEmitter, once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { LookupAddress } from 'node:dns';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AddressRefused, addressRefusal, createGuardedLookup, hostRefusal } from '../../src/platform/http/address-policy.js';
import { FetchFailed, FetchRefused, SafeFetcher } from '../../src/platform/http/safe-fetch.js';

interface Fixture {
  server: Server;
  origin: string;
  port: number;
  connections: number;
  requests: number;
}

const servers: Server[] = [];

async function serve(host: string, handler: (req: IncomingMessage, res: ServerResponse, body: string) => void): Promise<Fixture> {
  const server = createServer((req, res) => {
    fixture.requests += 1;
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => handler(req, res, body));
  });
  const fixture: Fixture = { server, origin: '', port: 0, connections: 0, requests: 0 };
  server.on('connection', () => (fixture.connections += 1));
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('server has no port');
  fixture.port = address.port;
  fixture.origin = `http://${host}:${address.port}`;
  servers.push(server);
  return fixture;
}

afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function refusal(promise: Promise<unknown>): Promise<FetchRefused> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(FetchRefused);
  return error as FetchRefused;
}

describe('addressRefusal', () => {
  it.each(['8.8.8.8', '93.184.216.34', '1.1.1.1', '2606:4700::1', '2001:4860:4860::8888', '::ffff:8.8.8.8', '64:ff9b::808:808', '2002:808:808::1'])(
    'allows the public address %s',
    (address) => {
      expect(addressRefusal(address)).toBeNull();
    },
  );

  it.each([
    ['127.0.0.1', '127.0.0.1 is a loopback address'],
    ['127.255.255.254', 'loopback'],
    ['::1', '::1 is a loopback address'],
    ['[::1]', '::1 is a loopback address'],
    ['10.0.0.1', '10.0.0.1 is a private address'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.1.1', 'link-local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['::', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['192.0.2.1', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['2001:db8::1', 'reserved'],
    ['2001:2::1', 'benchmarking'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456::1', 'unique-local'],
    ['169.254.169.254', '169.254.169.254 is a cloud metadata address'],
    ['fd00:ec2::254', 'cloud metadata'],
    ['100.100.100.200', 'cloud metadata'],
    ['::ffff:127.0.0.1', '::ffff:127.0.0.1 embeds 127.0.0.1, a loopback address'],
    ['::ffff:7f00:1', 'embeds 127.0.0.1'],
    ['::ffff:169.254.169.254', 'embeds 169.254.169.254, a cloud metadata address'],
    ['::ffff:0:a00:1', 'embeds 10.0.0.1'],
    ['::7f00:1', 'embeds 127.0.0.1'],
    ['::10.0.0.1', 'embeds 10.0.0.1'],
    ['64:ff9b::7f00:1', 'embeds 127.0.0.1'],
    ['64:ff9b::a9fe:a9fe', 'embeds 169.254.169.254'],
    ['64:ff9b:1::1', 'local-use NAT64'],
    ['2002:7f00:1::', 'embeds 127.0.0.1'],
    ['2002:c0a8:101::1', 'embeds 192.168.1.1'],
    ['2001::1', 'Teredo'],
    ['localhost', 'not an IP address'],
  ])('refuses %s', (address, reason) => {
    expect(addressRefusal(address)).toContain(reason);
  });

  it('with private addresses allowed still refuses cloud metadata addresses', () => {
    expect(addressRefusal('127.0.0.1', true)).toBeNull();
    expect(addressRefusal('10.0.0.1', true)).toBeNull();
    expect(addressRefusal('169.254.169.254', true)).toMatch(/cloud metadata/);
    expect(addressRefusal('fd00:ec2::254', true)).toMatch(/cloud metadata/);
  });

  it.each([
    '::ffff:169.254.169.254', // IPv4-mapped
    '[::ffff:a9fe:a9fe]', // the same in hex, bracketed
    '::ffff:0:169.254.169.254', // IPv4-translated
    '64:ff9b::169.254.169.254', // NAT64
    '2002:a9fe:a9fe::1', // 6to4
    '::169.254.169.254', // IPv4-compatible
    '::ffff:100.100.100.200', // Alibaba's, mapped
  ])('refuses the metadata address inside %s whatever the private-address setting', (address) => {
    for (const allowance of [true, ['169.254.169.254'], false] as const) {
      expect(addressRefusal(address, allowance), String(allowance)).toMatch(/cloud metadata/);
    }
  });

  it('with a list allows exactly the listed addresses, in any spelling', () => {
    expect(addressRefusal('127.0.0.2', ['127.0.0.2'])).toBeNull();
    expect(addressRefusal('::ffff:127.0.0.2', ['127.0.0.2'])).toBeNull();
    expect(addressRefusal('127.0.0.1', ['127.0.0.2'])).toMatch(/loopback/);
    expect(addressRefusal('8.8.8.8', ['127.0.0.2'])).toBeNull();
  });
});

describe('hostRefusal and SafeFetcher.refusal: what is judged at request time, without the network', () => {
  it.each([
    ['10.0.0.1', false, '10.0.0.1 is a private address'],
    ['[::ffff:169.254.169.254]', true, '::ffff:169.254.169.254 embeds 169.254.169.254, a cloud metadata address'],
    ['localhost', false, 'localhost names this machine (a loopback address)'],
    ['API.Localhost.', false, 'API.Localhost. names this machine (a loopback address)'],
    ['localhost', ['127.0.0.1'], null],
    ['localhost', true, null],
    ['example.com', false, null], // a name: judged when connecting, by its DNS answers
    ['localhost.example.com', false, null],
  ] as const)('%s (private allowed: %j) → %s', (host, allowPrivate, expected) => {
    expect(hostRefusal(host, allowPrivate as boolean | string[])).toBe(expected);
  });

  it('tells a caller why a URL would be refused before any work is queued', () => {
    const fetcher = new SafeFetcher();
    expect(fetcher.refusal('http://example.com/')).toBeNull();
    expect(fetcher.refusal('http://localhost:8080/')).toBe('localhost names this machine (a loopback address)');
    expect(fetcher.refusal('ftp://example.com/')).toBe('only http: and https: URLs can be fetched');
    expect(fetcher.refusal('http://user:pw@example.com/')).toBe('URLs with credentials (user:password@) are not allowed');
  });
});

describe('createGuardedLookup', () => {
  // A resolver that answers from a table, so no DNS server is asked.
  const resolver =
    (answers: LookupAddress[]) =>
    (_hostname: string, _options: unknown, callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) =>
      callback(null, answers);
  const lookup = (answers: LookupAddress[], all: boolean) =>
    new Promise<{ error: Error | null; address: unknown; family?: number }>((resolve) =>
      createGuardedLookup(false, resolver(answers))('rebind.example', { all }, (error, address, family) => resolve({ error, address, family })),
    );

  it('refuses the name when any of its addresses is forbidden', async () => {
    const { error } = await lookup(
      [
        { address: '93.184.216.34', family: 4 },
        { address: '10.0.0.1', family: 4 },
      ],
      true,
    );
    expect(error).toBeInstanceOf(AddressRefused);
    expect((error as AddressRefused).reason).toBe('10.0.0.1 is a private address');
  });

  it('hands the socket the checked addresses in the shape net.connect asked for', async () => {
    const answers = [
      { address: '93.184.216.34', family: 4 },
      { address: '2606:2800:220:1::1', family: 6 },
    ];
    expect(await lookup(answers, true)).toEqual({ error: null, address: answers, family: undefined });
    expect(await lookup(answers, false)).toEqual({ error: null, address: '93.184.216.34', family: 4 });
  });

  it('passes resolver errors through', async () => {
    const failing = (_hostname: string, _options: unknown, callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) =>
      callback(Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' }), []);
    const error = await new Promise<Error | null>((resolve) => createGuardedLookup(false, failing)('nx.example', {}, (caught) => resolve(caught)));
    expect(error).toMatchObject({ code: 'ENOTFOUND' });
  });
});

describe('SafeFetcher with private addresses refused (the default)', () => {
  let target: Fixture;
  let fetcher: SafeFetcher;
  beforeAll(async () => {
    target = await serve('127.0.0.1', (_req, res) => res.end('reached'));
    fetcher = new SafeFetcher({ timeoutMs: 2000 });
  });
  afterAll(() => fetcher.close());

  // Every spelling here leads to the fixture server; none may open a connection to it.
  it.each([
    'http://127.0.0.1:PORT/',
    'https://127.0.0.1:PORT/',
    'http://2130706433:PORT/',
    'http://017700000001:PORT/',
    'http://0x7f000001:PORT/',
    'http://0x7f.0.0.1:PORT/',
    'http://0x7f.1:PORT/',
    'http://0177.0.0.1:PORT/',
    'http://127.000.000.001:PORT/',
    'http://127.1:PORT/',
    'http://127.0.0.1.:PORT/',
    'http://%31%32%37.0.0.1:PORT/',
    'http://１２７.０.０.１:PORT/',
    'http:/\\127.0.0.1:PORT/',
    'http://[::ffff:127.0.0.1]:PORT/',
    'http://[::ffff:7f00:1]:PORT/',
    'http://[0:0:0:0:0:ffff:127.0.0.1]:PORT/',
    'http://[::127.0.0.1]:PORT/',
    'http://[64:ff9b::127.0.0.1]:PORT/',
    'http://[2002:7f00:1::]:PORT/',
    'http://[::1]:PORT/',
    'http://0:PORT/',
    'http://0.0.0.0:PORT/',
    'http://[::]:PORT/',
    'http://localhost:PORT/',
    'http://LOCALHOST:PORT/',
  ])('refuses %s before connecting', async (spelling) => {
    const error = await refusal(fetcher.fetch(spelling.replace('PORT', String(target.port))));
    expect(error.status).toBe(400);
    expect(error.code).toBe('FETCH_REFUSED');
    expect(error.message).toMatch(/^refused to fetch https?:\/\/\S+:\d+\/: \S+ (is|embeds|names) /);
    expect(target.connections).toBe(0);
  });

  it('names the host and the reason', async () => {
    expect((await refusal(fetcher.fetch('http://10.0.0.1/'))).message).toBe('refused to fetch http://10.0.0.1/: 10.0.0.1 is a private address');
    expect((await refusal(fetcher.fetch(`http://localhost:${target.port}/x?token=secret`))).message).toBe(
      `refused to fetch http://localhost:${target.port}/: localhost names this machine (a loopback address)`,
    );
  });

  // These point away from loopback; the refusal comes before any packet is sent.
  it.each([
    ['http://10.0.0.1/', 'private'],
    ['http://172.16.0.1/', 'private'],
    ['http://192.168.0.1/', 'private'],
    ['http://169.254.169.254/latest/meta-data/', 'cloud metadata'],
    ['http://[fd00:ec2::254]/', 'cloud metadata'],
    ['http://100.100.100.200/', 'cloud metadata'],
    ['http://100.64.0.1/', 'carrier-grade NAT'],
    ['http://224.0.0.1/', 'multicast'],
    ['http://255.255.255.255/', 'broadcast'],
    ['http://240.0.0.1/', 'reserved'],
    ['http://192.0.2.1/', 'reserved'],
    ['http://[fe80::1]/', 'link-local'],
    ['http://[fc00::1]/', 'unique-local'],
    ['http://[ff02::1]/', 'multicast'],
    ['http://[::ffff:169.254.169.254]/', 'cloud metadata'],
    ['http://[64:ff9b::10.0.0.1]/', 'embeds 10.0.0.1'],
    ['http://[2002:a00:1::]/', 'embeds 10.0.0.1'],
    ['http://[fe80::1%25eth0]/', 'not a valid URL'],
  ])('refuses %s (%s)', async (url, reason) => {
    expect((await refusal(fetcher.fetch(url))).message).toContain(reason);
  });

  it.each(['file:///etc/passwd', 'ftp://example.com/file', 'data:text/plain,hello', 'javascript:alert(1)', 'gopher://127.0.0.1:70/', 'not a url'])(
    'refuses %s',
    async (url) => {
      expect((await refusal(fetcher.fetch(url))).message).toMatch(/only http: and https: URLs can be fetched|not a valid URL/);
    },
  );

  it('refuses URLs with credentials without repeating them', async () => {
    const error = await refusal(fetcher.fetch('http://admin:hunter2@example.com/'));
    expect(error.message).toBe('refused to fetch http://example.com/: URLs with credentials (user:password@) are not allowed');
  });
});

describe('SafeFetcher re-checks every redirect hop', () => {
  // The list allows 127.0.0.2 only: the first hop is reachable, while 127.0.0.1 (and `localhost`,
  // which resolves to it) stays refused, exactly as a private address is in production.
  let hop: Fixture;
  let forbidden: Fixture;
  let fetcher: SafeFetcher;
  beforeAll(async () => {
    hop = await serve('127.0.0.2', (req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.pathname === '/to') res.writeHead(302, { location: url.searchParams.get('target') ?? '/' }).end();
      else res.end('allowed');
    });
    forbidden = await serve('127.0.0.1', (_req, res) => res.end('reached'));
    fetcher = new SafeFetcher({ allowPrivateAddresses: ['127.0.0.2'], timeoutMs: 2000 });
  });
  afterAll(() => fetcher.close());

  const via = (target: string) => `${hop.origin}/to?target=${encodeURIComponent(target)}`;

  it('follows a redirect to an allowed address', async () => {
    const response = await fetcher.fetch(via('/ok'));
    expect(response.body.toString()).toBe('allowed');
    expect(response.redirects).toEqual([via('/ok')]);
  });

  it.each([
    ['http://127.0.0.1:PORT/', '127.0.0.1 is a loopback address'],
    ['http://0x7f.1:PORT/', '127.0.0.1 is a loopback address'],
    ['http://[::ffff:127.0.0.1]:PORT/', 'embeds 127.0.0.1'],
    // localhost is loopback by definition (RFC 6761), judged before any lookup; other names are
    // judged by the connect-time lookup (createGuardedLookup, above).
    ['http://localhost:PORT/', 'localhost names this machine (a loopback address)'],
    ['file:///etc/passwd', 'only http: and https: URLs'],
  ])('refuses a redirect to %s', async (target, reason) => {
    const error = await refusal(fetcher.fetch(via(target.replace('PORT', String(forbidden.port)))));
    expect(error.message).toContain(reason);
    expect(forbidden.connections).toBe(0);
  });
});

describe('SafeFetcher with private addresses allowed', () => {
  let site: Fixture;
  let fetcher: SafeFetcher;
  const events = new EventEmitter();
  beforeAll(async () => {
    site = await serve('127.0.0.1', (req, res, body) => {
      const url = new URL(req.url ?? '/', 'http://x');
      const path = url.pathname;
      if (path === '/hello') return res.writeHead(200, { 'content-type': 'text/plain' }).end('hello');
      if (path === '/user-agent') return res.end(req.headers['user-agent']);
      if (path === '/missing') return res.writeHead(404).end('nope');
      if (path === '/echo') return res.end(`${req.method} ${JSON.stringify(body)} ${req.headers['content-type'] ?? '-'}`);
      if (path === '/see-other') return res.writeHead(303, { location: '/echo' }).end();
      if (path === '/found') return res.writeHead(302, { location: `${site.origin}/echo` }).end();
      if (path === '/temporary') return res.writeHead(307, { location: 'echo' }).end();
      const hops = /^\/redirect\/(\d+)$/.exec(path);
      if (hops) {
        const left = Number(hops[1]);
        return left === 0 ? res.end('arrived') : res.writeHead(302, { location: `/redirect/${left - 1}` }).end();
      }
      if (path === '/hundred') return res.end('x'.repeat(100));
      if (path === '/declared-large') return res.writeHead(200, { 'content-length': '1000' }).end('x'.repeat(1000));
      if (path === '/endless') {
        // Streams chunked data until the client goes away, and says when it did.
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        const chunk = Buffer.alloc(16 * 1024, 'x');
        const timer = setInterval(() => res.write(chunk), 1);
        res.on('close', () => {
          clearInterval(timer);
          events.emit('endless-closed');
        });
        return;
      }
      if (path === '/stalled-body') return res.writeHead(200).write('partial');
      if (path === '/stalled') return; // never answers
      res.writeHead(500).end('unexpected path');
    });
    fetcher = new SafeFetcher({ allowPrivateAddresses: true, timeoutMs: 2000, userAgent: 'image-service-test/1.0' });
  });
  afterAll(() => fetcher.close());

  it('fetches a page', async () => {
    const response = await fetcher.fetch(`${site.origin}/hello`);
    expect(response).toMatchObject({ url: `${site.origin}/hello`, status: 200, redirects: [] });
    expect(response.headers.get('content-type')).toBe('text/plain');
    expect(response.body.toString()).toBe('hello');
  });

  it('returns non-2xx answers instead of throwing', async () => {
    const response = await fetcher.fetch(`${site.origin}/missing`);
    expect(response.status).toBe(404);
    expect(response.body.toString()).toBe('nope');
  });

  it('always sends its own user agent', async () => {
    const response = await fetcher.fetch(`${site.origin}/user-agent`, { headers: { 'User-Agent': 'curl/8' } });
    expect(response.body.toString()).toBe('image-service-test/1.0');
  });

  it('follows a chain of three relative redirects and reports each hop', async () => {
    const response = await fetcher.fetch(`${site.origin}/redirect/3`);
    expect(response.url).toBe(`${site.origin}/redirect/0`);
    expect(response.redirects).toEqual([`${site.origin}/redirect/3`, `${site.origin}/redirect/2`, `${site.origin}/redirect/1`]);
    expect(response.body.toString()).toBe('arrived');
  });

  it('refuses more than maxRedirects hops', async () => {
    expect((await fetcher.fetch(`${site.origin}/redirect/5`)).status).toBe(200);
    expect((await refusal(fetcher.fetch(`${site.origin}/redirect/6`))).message).toBe(`refused to fetch ${site.origin}/: more than 5 redirects`);
    expect((await refusal(fetcher.fetch(`${site.origin}/redirect/3`, { maxRedirects: 2 }))).message).toMatch(/more than 2 redirects/);
  });

  it('turns a POST into a GET without body on 303 and 302, and keeps it on 307', async () => {
    const post = { method: 'POST', body: 'payload', headers: { 'content-type': 'text/plain' } };
    expect((await fetcher.fetch(`${site.origin}/see-other`, post)).body.toString()).toBe('GET "" -');
    expect((await fetcher.fetch(`${site.origin}/found`, post)).body.toString()).toBe('GET "" -');
    expect((await fetcher.fetch(`${site.origin}/temporary`, post)).body.toString()).toBe('POST "payload" text/plain');
  });

  it('accepts a body of exactly maxBytes', async () => {
    expect((await fetcher.fetch(`${site.origin}/hundred`, { maxBytes: 100 })).body.length).toBe(100);
    expect((await refusal(fetcher.fetch(`${site.origin}/hundred`, { maxBytes: 99 }))).message).toMatch(/larger than the limit of 99 bytes/);
  });

  it('refuses a body whose Content-Length is over the limit before reading it', async () => {
    const error = await refusal(fetcher.fetch(`${site.origin}/declared-large`, { maxBytes: 100 }));
    expect(error.message).toBe(`refused to fetch ${site.origin}/: the response is larger than the limit of 100 bytes`);
  });

  it('stops reading a body without Content-Length once it passes the limit, and drops the connection', async () => {
    const closed = once(events, 'endless-closed');
    const error = await refusal(fetcher.fetch(`${site.origin}/endless`, { maxBytes: 100_000 }));
    expect(error.message).toMatch(/larger than the limit of 100000 bytes/);
    await closed;
  });

  it('makes a streamed body error once it passes the limit', async () => {
    const closed = once(events, 'endless-closed');
    const response = await fetcher.stream(`${site.origin}/endless`, { maxBytes: 50_000 });
    expect(response.contentLength).toBeNull();
    let received = 0;
    const reading = (async () => {
      for await (const chunk of response.body) received += (chunk as Buffer).length;
    })();
    await expect(reading).rejects.toBeInstanceOf(FetchRefused);
    expect(received).toBeLessThanOrEqual(50_000);
    await closed;
  });

  it('gives up on a server that does not answer in time', async () => {
    const started = Date.now();
    const error = await fetcher.fetch(`${site.origin}/stalled`, { timeoutMs: 200 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(FetchFailed);
    expect(error).toMatchObject({ status: 400, code: 'FETCH_FAILED', message: `could not fetch ${site.origin}/: timed out after 200 ms` });
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('applies the deadline to the body too', async () => {
    const response = await fetcher.stream(`${site.origin}/stalled-body`, { timeoutMs: 200 });
    expect(response.status).toBe(200);
    const reading = (async () => {
      for await (const _chunk of response.body);
    })();
    await expect(reading).rejects.toThrow(`could not fetch ${site.origin}/: timed out after 200 ms`);
  });

  it('stops a request and its body when the caller aborts', async () => {
    const caller = new AbortController();
    const waiting = fetcher.fetch(`${site.origin}/stalled`, { signal: caller.signal }).catch((caught: unknown) => caught);
    setTimeout(() => caller.abort(), 50);
    expect(await waiting).toMatchObject({ code: 'FETCH_FAILED', message: `could not fetch ${site.origin}/: the request was cancelled` });

    const reader = new AbortController();
    const response = await fetcher.stream(`${site.origin}/stalled-body`, { signal: reader.signal });
    const reading = (async () => {
      for await (const _chunk of response.body);
    })();
    reader.abort();
    await expect(reading).rejects.toThrow(`could not fetch ${site.origin}/: the request was cancelled`);
    const aborted = new AbortController();
    aborted.abort();
    await expect(fetcher.fetch(`${site.origin}/hello`, { signal: aborted.signal })).rejects.toThrow('the request was cancelled');
  });

  it('reports a refused connection as FetchFailed', async () => {
    const closedPort = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as { port: number };
        probe.close(() => resolve(port));
      });
    });
    const error = await fetcher.fetch(`http://127.0.0.1:${closedPort}/`).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(FetchFailed);
    expect((error as FetchFailed).message).toBe(`could not fetch http://127.0.0.1:${closedPort}/: connection refused`);
  });
});
