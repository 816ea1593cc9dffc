// Render mode is as safe as the plain fetcher. A page on the allowed address (127.0.0.1) tries every
// way out a page has (img, fetch, XHR, WebSocket, beacon, iframe, CSS, preconnect, popup, redirect,
// WebRTC) towards loopback canaries outside the allowance, 127.0.0.2 and [::1], in several
// spellings; the canaries count connections and must see none. The same page aimed at canaries on
// the allowed address shows that each of those ways out does make a request in this browser, so
// the zero is the proxy's doing. A rebinding name comes from a resolver the test controls.
// Everything listens on loopback: no test traffic leaves this machine.
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LookupAddress } from 'node:dns';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Renderer } from '../../src/modules/render/index.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/platform/logger.js';
import { FetchRefused } from '../../src/platform/http/safe-fetch.js';
import { addressRefusal, type Resolver } from '../../src/platform/http/address-policy.js';
import { chromiumAvailable } from '../helpers/browser.js';

interface Canary {
  server: Server;
  port: number;
  connections: number;
  /** Paths asked for, WebSocket upgrades as `ws:<path>`. */
  paths: string[];
}

const servers: Server[] = [];
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

async function listen(host: string, handler: (req: IncomingMessage, res: ServerResponse) => void, port = 0): Promise<Canary> {
  const canary: Canary = { server: createServer(), port: 0, connections: 0, paths: [] };
  canary.server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    canary.paths.push(req.url!);
    handler(req, res);
  });
  canary.server.on('upgrade', (req: IncomingMessage, socket) => {
    canary.paths.push(`ws:${req.url}`);
    socket.destroy();
  });
  canary.server.on('connection', () => canary.connections++);
  canary.server.listen(port, host);
  await once(canary.server, 'listening');
  canary.port = (canary.server.address() as AddressInfo).port;
  servers.push(canary.server);
  return canary;
}

const canaryAnswer = (_req: IncomingMessage, res: ServerResponse) => {
  res.setHeader('access-control-allow-origin', '*');
  res.setHeader('content-type', 'image/png');
  res.end(PNG);
};

/** The page that tries every way out towards each of `targets` (origins), then reports to its own server. */
function attackPage(targets: string[]): string {
  const tags = targets
    .map(
      (t) => `<img src="${t}/img"><iframe src="${t}/iframe"></iframe><div style="width:10px;height:10px;background-image:url('${t}/css')"></div>
<link rel="preconnect" href="${t}"><link rel="stylesheet" href="${t}/sheet.css"><img src="/redirect?to=${encodeURIComponent(`${t}/redirected`)}">
<a class="popup" target="_blank" href="${t}/popup-link">x</a>`,
    )
    .join('\n');
  return `<!doctype html><html><head><title>attack</title></head><body>
<img src="/own.png" id="own">
${tags}
<script>
const targets = ${JSON.stringify(targets)};
const settle = (p) => p.then(() => 'reached', () => 'blocked');
const attempts = [];
for (const t of targets) {
  attempts.push(settle(fetch(t + '/fetch', { mode: 'no-cors' })));
  attempts.push(settle(fetch('/redirect?to=' + encodeURIComponent(t + '/fetch-redirected'), { mode: 'no-cors' })));
  attempts.push(new Promise((resolve) => { const x = new XMLHttpRequest(); x.open('GET', t + '/xhr'); x.onloadend = () => resolve('done'); x.send(); }));
  attempts.push(new Promise((resolve) => { const ws = new WebSocket(t.replace('http', 'ws') + '/ws'); ws.onerror = ws.onclose = () => resolve('closed'); }));
  navigator.sendBeacon(t + '/beacon', 'x');
  window.open(t + '/popup-open');
  document.querySelectorAll('a.popup').forEach((a) => a.click());
  try {
    const pc = new RTCPeerConnection({ iceServers: [{ urls: 'stun:' + new URL(t).host }] });
    pc.createDataChannel('x');
    pc.createOffer().then((o) => pc.setLocalDescription(o));
  } catch {}
}
Promise.all(attempts).then(() => fetch('/report', { method: 'POST', body: 'done' }));
</script></body></html>`;
}

const describeBrowser = describe.runIf(chromiumAvailable);

describeBrowser('render mode: the browser reaches only what the fetcher may', () => {
  let page: Canary; // the allowed server: pages, redirects, the report
  let control: Canary; // a canary on the allowed address: shows each way out makes a request
  let v4: Canary;
  let v6: Canary;
  let rebound: Canary; // 127.0.0.2 on the page server's port: a rebinding name's second answer
  let udp: UdpSocket;
  let udpDatagrams = 0;
  let renderer: Renderer;
  const reports: Array<() => void> = [];
  const rebindAnswers: string[][] = [];

  beforeAll(async () => {
    page = await listen('127.0.0.1', (req, res) => {
      const url = new URL(req.url!, 'http://x');
      if (url.pathname === '/attack') return void res.setHeader('content-type', 'text/html').end(attackPage(JSON.parse(url.searchParams.get('targets')!) as string[]));
      if (url.pathname === '/redirect') return void res.writeHead(302, { location: url.searchParams.get('to')! }).end();
      if (url.pathname === '/report') {
        for (const wake of reports.splice(0)) wake();
        return void res.end('ok');
      }
      if (url.pathname === '/rebind') return void res.setHeader('content-type', 'text/html').end('<!doctype html><p id="first">first answer</p><img src="/secret.png"><script>fetch("/secret").catch(() => {})</script>');
      if (url.pathname.endsWith('.png')) return void res.setHeader('content-type', 'image/png').end(PNG);
      res.statusCode = 404;
      res.end();
    });
    control = await listen('127.0.0.1', canaryAnswer);
    v4 = await listen('127.0.0.2', canaryAnswer);
    v6 = await listen('::1', canaryAnswer);
    rebound = await listen('127.0.0.2', canaryAnswer, page.port);
    udp = createSocket('udp4');
    udp.on('message', () => udpDatagrams++);
    udp.bind(v4.port, '127.0.0.2');
    await once(udp, 'listening');
    const resolve: Resolver = (hostname, _options, callback) => {
      if (hostname !== 'rebind.test') return callback(Object.assign(new Error('not found'), { code: 'ENOTFOUND' }), []);
      const answer = rebindAnswers.shift() ?? ['127.0.0.2'];
      callback(null, answer.map((address): LookupAddress => ({ address, family: 4 })));
    };
    const settings = loadConfig({}).render;
    renderer = new Renderer({
      settings: { ...settings, budget: { ...settings.budget, timeMs: 15_000 } },
      allowPrivateAddresses: ['127.0.0.1'],
      userAgent: 'render-test',
      logger: createLogger('silent'),
      resolve,
    });
  });

  afterAll(async () => {
    await renderer?.close();
    udp?.close();
    for (const server of servers) {
      server.closeAllConnections();
      server.close();
    }
  });

  const reported = () => new Promise<void>((resolve) => reports.push(resolve));
  const attackUrl = (targets: string[]) => `http://127.0.0.1:${page.port}/attack?targets=${encodeURIComponent(JSON.stringify(targets))}`;

  it('every way out of the page makes a request to an allowed address (the control)', async () => {
    const origin = `http://127.0.0.1:${control.port}`;
    const [rendered] = await Promise.all([renderer.renderPage(attackUrl([origin])), reported()]);
    expect(rendered.status).toBe(200);
    expect(control.paths).toEqual(
      expect.arrayContaining(['/img', '/iframe', '/css', '/sheet.css', '/redirected', '/fetch', '/fetch-redirected', '/xhr', 'ws:/ws', '/beacon']),
    );
    // Popups are off: window.open answers null, and a page a link opens is closed.
    expect(control.paths).not.toContain('/popup-open');
  });

  it('no way out reaches 127.0.0.2 or [::1] in any spelling, and the page still renders', async () => {
    const targets = [
      `http://127.0.0.2:${v4.port}`,
      `http://2130706434:${v4.port}`,
      `http://0x7f.0.0.2:${v4.port}`,
      `http://[::ffff:127.0.0.2]:${v4.port}`,
      `http://[::1]:${v6.port}`,
      `http://[0:0:0:0:0:0:0:1]:${v6.port}`,
      `http://localhost:${v6.port}`,
    ];
    const [rendered] = await Promise.all([renderer.renderPage(attackUrl(targets)), reported()]);
    expect(rendered.status).toBe(200);
    expect(rendered.images).toContain(`http://127.0.0.1:${page.port}/own.png`);
    expect(rendered.fetchedImages.map((i) => i.url)).toEqual([`http://127.0.0.1:${page.port}/own.png`]);
    expect({ v4: v4.connections, v6: v6.connections, udp: udpDatagrams }).toEqual({ v4: 0, v6: 0, udp: 0 });
  });

  it('a start page that redirects to a refused address fails as the fetcher would, and reaches nothing', async () => {
    const error = await renderer.renderPage(`http://127.0.0.1:${page.port}/redirect?to=${encodeURIComponent(`http://[::1]:${v6.port}/top`)}`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FetchRefused);
    expect((error as FetchRefused).reason).toMatch(/::1 is a loopback address/);
    expect(v6.connections).toBe(0);
  });

  it('refuses a start page on a refused address before the browser asks for it', async () => {
    for (const url of [`http://127.0.0.2:${v4.port}/`, `http://[::1]:${v6.port}/`, 'file:///etc/passwd', 'http://169.254.169.254/latest/meta-data/']) {
      await expect(renderer.renderPage(url)).rejects.toBeInstanceOf(FetchRefused);
    }
    expect({ v4: v4.connections, v6: v6.connections }).toEqual({ v4: 0, v6: 0 });
  });

  it('a rebinding name: its first answer (allowed) renders, its second (127.0.0.2, same port) is never connected to', async () => {
    rebindAnswers.push(['127.0.0.1']);
    const rendered = await renderer.renderPage(`http://rebind.test:${page.port}/rebind`);
    expect(rendered.status).toBe(200);
    expect(rendered.html).toContain('first answer');
    expect(rebindAnswers).toEqual([]); // the document used the first answer; the image and fetch asked again
    expect(rebound.connections).toBe(0);
    expect(rebound.paths).toEqual([]);
  });

  it('the policy the proxy applies refuses metadata and other non-loopback private addresses (judged, never connected to)', () => {
    for (const allowance of [['127.0.0.1'], true] as const) {
      expect(addressRefusal('169.254.169.254', allowance as boolean | string[])).toMatch(/cloud metadata/);
      expect(addressRefusal('::ffff:169.254.169.254', allowance as boolean | string[])).toMatch(/cloud metadata/);
      expect(addressRefusal('fd00:ec2::254', allowance as boolean | string[])).toMatch(/cloud metadata/);
    }
    for (const address of ['10.0.0.1', '192.168.1.1', '172.16.0.1', '100.64.0.1', 'fe80::1', 'fc00::1']) expect(addressRefusal(address, ['127.0.0.1'])).not.toBeNull();
  });
});
