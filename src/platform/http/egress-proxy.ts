// The only way out of the rendering browser: an HTTP proxy on 127.0.0.1 that opens every
// connection by SafeFetcher's address policy. Chromium is launched with it as its proxy and with
// loopback not bypassed (`<-loopback>`), so documents, scripts, images, XHR, WebSocket, beacons,
// iframes, popups, redirects and workers all arrive here as a CONNECT (https, ws, wss) or an
// absolute-form request (plain http). Each connection is judged the way SafeFetcher judges one:
// an IP literal by its address, a name by every address its DNS answer holds (the guarded lookup
// hands the socket exactly the addresses it checked), and then the address actually connected to,
// again, so no rebinding answer can slip a private address in between.
// A proxy also carries a budget (connections and bytes) and is closed with its page: closing it cuts
// every tunnel, so nothing the page started outlives it.
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import { AddressRefused, addressRefusal, createGuardedLookup, hostRefusal, isIpLiteral, unbracket, type PrivateAddressAllowance, type Resolver } from './address-policy.js';

export interface EgressProxyOptions {
  allowPrivateAddresses: PrivateAddressAllowance;
  /** Connections (tunnels and forwarded requests) allowed; later ones are refused. */
  maxConnections?: number;
  /** Bytes received from the sites, all connections together; past it every connection is cut. */
  maxBytes?: number;
  connectTimeoutMs?: number;
  /** Name resolution (tests play a rebinding DNS server with it); the system's by default. */
  resolve?: Resolver;
  /** Called once when a budget is used up. */
  onExhausted?: (what: 'connections' | 'bytes') => void;
}

export interface EgressStats {
  connections: number;
  bytes: number;
  /** Connections refused by the address policy or the budget. */
  refused: number;
  /** The first few reasons (for the log and the error of a refused start page). */
  reasons: Array<{ host: string; reason: string }>;
}

const KEPT_REASONS = 20;
/** On the proxy's own refusal of a plain-http request, with the reason. */
export const REFUSED_HEADER = 'x-egress-refused';
// Headers of one hop (RFC 9110 7.6.1) and the proxy's own: never passed on.
const HOP_HEADERS = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'proxy-authenticate', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

class ConnectRefused extends Error {
  constructor(
    readonly host: string,
    readonly reason: string,
  ) {
    super(`${host}: ${reason}`);
  }
}

export class EgressProxy {
  readonly stats: EgressStats = { connections: 0, bytes: 0, refused: 0, reasons: [] };
  private readonly server: http.Server;
  private readonly sockets = new Set<Duplex>();
  private readonly lookup: ReturnType<typeof createGuardedLookup>;
  private exhausted: 'connections' | 'bytes' | null = null;
  private closed = false;
  private port = 0;

  private constructor(private readonly options: EgressProxyOptions) {
    this.lookup = createGuardedLookup(options.allowPrivateAddresses, options.resolve);
    this.server = http.createServer((req, res) => void this.forward(req, res));
    this.server.on('connect', (req: IncomingMessage, client: Duplex, head: Buffer) => void this.tunnel(req, client, head));
    // A WebSocket over plain http comes as a CONNECT; an Upgrade sent to the proxy itself is not served.
    this.server.on('upgrade', (_req: IncomingMessage, client: Duplex) => client.destroy());
    this.server.on('connection', (socket: net.Socket) => this.track(socket));
    this.server.on('clientError', (_error, socket: Duplex) => socket.destroy());
  }

  /** Listens on 127.0.0.1 on a port of the system's choosing. */
  static async listen(options: EgressProxyOptions): Promise<EgressProxy> {
    const proxy = new EgressProxy(options);
    await new Promise<void>((resolve, reject) => {
      proxy.server.once('error', reject);
      proxy.server.listen(0, '127.0.0.1', () => resolve());
    });
    proxy.port = (proxy.server.address() as net.AddressInfo).port;
    return proxy;
  }

  /** What to give the browser as its proxy server. */
  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Which budget ran out, if one did. */
  get exhaustedBy(): 'connections' | 'bytes' | null {
    return this.exhausted;
  }

  /** Stops listening and cuts every connection, both sides. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const closing = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const socket of this.sockets) socket.destroy();
    this.server.closeAllConnections();
    await closing;
  }

  /** CONNECT host:port: https, ws and wss (and anything else the browser tunnels). */
  private async tunnel(req: IncomingMessage, client: Duplex, head: Buffer): Promise<void> {
    this.track(client);
    client.on('error', () => {});
    const target = parseAuthority(req.url ?? '');
    if (!target) return void client.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n', () => client.destroy());
    let upstream: net.Socket;
    try {
      upstream = await this.open(target.host, target.port);
    } catch (error) {
      return void client.end(`HTTP/1.1 ${statusOf(error)}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`, () => client.destroy());
    }
    if (client.destroyed) return void upstream.destroy();
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.length > 0) upstream.write(head);
    upstream.on('data', (chunk: Buffer) => this.received(chunk.length));
    upstream.pipe(client);
    client.pipe(upstream);
    const end = () => {
      upstream.destroy();
      client.destroy();
    };
    upstream.on('close', end);
    client.on('close', end);
  }

  /** An absolute-form request for plain http. */
  private async forward(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let target: URL;
    try {
      target = new URL(req.url ?? '');
    } catch {
      return void answer(res, 400, 'the proxy takes absolute http URLs only');
    }
    // Only http travels this way (https comes as CONNECT); file:, ftp: and the rest never leave.
    if (target.protocol !== 'http:') return void answer(res, 400, `the proxy does not fetch ${target.protocol} URLs`);
    const host = unbracket(target.hostname);
    const port = Number(target.port || 80);
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(req.headers)) if (value !== undefined && !HOP_HEADERS.has(name)) headers[name] = value;
    let upstream: net.Socket;
    try {
      upstream = await this.open(host, port);
    } catch (error) {
      req.resume();
      // The browser shows a plain-http answer as the site's own: the header tells the renderer it was ours.
      if (error instanceof ConnectRefused) res.setHeader(REFUSED_HEADER, error.reason);
      return void answer(res, Number(statusOf(error).slice(0, 3)), error instanceof ConnectRefused ? `refused: ${error.reason}` : 'could not connect');
    }
    const outgoing = http.request({
      method: req.method,
      path: target.pathname + target.search,
      headers: { ...headers, connection: 'close' },
      createConnection: () => upstream,
    });
    outgoing.on('error', () => res.destroy());
    res.on('close', () => outgoing.destroy());
    outgoing.on('response', (incoming) => {
      const kept: string[] = [];
      for (let i = 0; i < incoming.rawHeaders.length; i += 2) {
        if (!HOP_HEADERS.has(incoming.rawHeaders[i]!.toLowerCase())) kept.push(incoming.rawHeaders[i]!, incoming.rawHeaders[i + 1]!);
      }
      res.writeHead(incoming.statusCode ?? 502, incoming.statusMessage, kept);
      incoming.on('data', (chunk: Buffer) => this.received(chunk.length));
      incoming.pipe(res);
    });
    req.pipe(outgoing);
  }

  /**
   * Opens a connection to host:port if the policy and the budget allow it. Rejects with
   * ConnectRefused (policy or budget) or the network's error.
   */
  private async open(hostname: string, port: number): Promise<net.Socket> {
    const host = unbracket(hostname);
    if (this.closed) throw this.refuse(host, 'the page is closed');
    if (this.exhausted) throw this.refuse(host, `the page's ${this.exhausted} budget is used up`);
    if (!Number.isInteger(port) || port < 1 || port > 65535) throw this.refuse(host, `port ${port} is not a port`);
    this.stats.connections++;
    if (this.options.maxConnections !== undefined && this.stats.connections > this.options.maxConnections) {
      this.exhaust('connections');
      throw this.refuse(host, `more than ${this.options.maxConnections} connections`);
    }
    // net.connect never calls `lookup` for an IP literal, so literals (and localhost names) are judged here.
    const upfront = isIpLiteral(host) ? addressRefusal(host, this.options.allowPrivateAddresses) : hostRefusal(host, this.options.allowPrivateAddresses);
    if (upfront) throw this.refuse(host, upfront);
    const socket = net.connect({ host, port, lookup: this.lookup });
    this.track(socket);
    socket.on('error', () => {});
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('connection timed out')), this.options.connectTimeoutMs ?? 10_000);
        socket.once('connect', () => {
          clearTimeout(timer);
          resolve();
        });
        socket.once('error', (error) => {
          clearTimeout(timer);
          reject(error);
        });
        socket.once('close', () => reject(new Error('closed')));
      });
    } catch (error) {
      socket.destroy();
      if (error instanceof AddressRefused) throw this.refuse(host, error.reason);
      throw error;
    }
    // The address the socket did reach, judged once more: whatever resolved the name, this is where the bytes go.
    const reached = addressRefusal(socket.remoteAddress ?? '', this.options.allowPrivateAddresses);
    if (reached) {
      socket.destroy();
      throw this.refuse(host, reached);
    }
    return socket;
  }

  private refuse(host: string, reason: string): ConnectRefused {
    this.stats.refused++;
    if (this.stats.reasons.length < KEPT_REASONS) this.stats.reasons.push({ host, reason });
    return new ConnectRefused(host, reason);
  }

  private received(bytes: number): void {
    this.stats.bytes += bytes;
    if (this.options.maxBytes !== undefined && this.stats.bytes > this.options.maxBytes && !this.exhausted) {
      this.exhaust('bytes');
      for (const socket of this.sockets) socket.destroy();
    }
  }

  private exhaust(what: 'connections' | 'bytes'): void {
    if (this.exhausted) return;
    this.exhausted = what;
    this.options.onExhausted?.(what);
  }

  private track(socket: Duplex): void {
    if (this.closed) return void socket.destroy();
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
  }
}

/** host:port of a CONNECT ([v6]:port too), the host in URL-normalised form; null when it is not one. */
function parseAuthority(authority: string): { host: string; port: number } | null {
  const match = /^(\[[^\]]+\]|[^:[\]/@]+):(\d{1,5})$/.exec(authority);
  if (!match) return null;
  try {
    // The URL parser spells a host the way the policy reads it (0x7f.1 is 127.0.0.1).
    return { host: unbracket(new URL(`http://${match[1]}/`).hostname), port: Number(match[2]) };
  } catch {
    return null;
  }
}

function statusOf(error: unknown): string {
  return error instanceof ConnectRefused ? '403 Forbidden' : '502 Bad Gateway';
}

function answer(res: ServerResponse, status: number, text: string): void {
  const body = Buffer.from(text);
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'content-length': body.length });
  res.end(body);
}
