// createAppServer: Node makes each request's objects with Express's prototypes, so Express's own
// Object.setPrototypeOf changes nothing (src/http/server.ts), and Express works on them as before.
import { once } from 'node:events';
import { Agent, createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { createAppServer, PROTOTYPES_PRESET } from '../../src/http/server.js';

let server: Server | undefined;
afterEach(async () => {
  server?.close();
  server = undefined;
});

/** The app's answer, and whether Node made the request's objects with Express's prototypes (seen before Express ran). */
async function serve(make: (app: express.Express) => Server): Promise<{ url: string; preset: boolean[] }> {
  const app = express();
  app.use(express.json());
  app.post('/things/:id', (req, res) => {
    res.set('X-Seen', 'yes');
    res.status(201).json({ id: req.params.id, q: req.query.q, body: req.body, header: req.get('x-thing'), ip: req.ip, path: req.path });
  });
  app.get('/missing', (_req, res) => void res.sendStatus(404));
  server = make(app);
  const preset: boolean[] = [];
  server.prependListener('request', (req: IncomingMessage, res) => preset.push(Object.getPrototypeOf(req) === app.request && Object.getPrototypeOf(res) === app.response));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, preset };
}

describe('createAppServer', () => {
  it('runs on this Node (its constructors are plain functions)', () => {
    expect(PROTOTYPES_PRESET).toBe(true);
  });

  it("makes requests and responses with the app's prototypes, which a plain server does not", async () => {
    const plain = await serve((app) => createServer(app));
    await fetch(`${plain.url}/missing`);
    expect(plain.preset).toEqual([false]);
    server!.close();

    const preset = await serve(createAppServer);
    await fetch(`${preset.url}/missing`);
    expect(preset.preset).toEqual([true]);
  });

  it('serves Express as before: params, query, JSON body, headers, status, several requests on one connection', async () => {
    const { url, preset } = await serve(createAppServer);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const sockets = new Set<unknown>();
    for (const n of [1, 2, 3]) {
      const answer = await new Promise<{ status: number; headers: IncomingMessage['headers']; body: string }>((resolve, reject) => {
        const req = request(`${url}/things/${n}?q=x${n}`, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'x-thing': `t${n}` } }, (res) => {
          sockets.add(res.socket);
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (body += chunk));
          res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
        });
        req.on('error', reject);
        req.end(JSON.stringify({ n }));
      });
      expect(answer.status).toBe(201);
      expect(answer.headers['x-seen']).toBe('yes');
      expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(JSON.parse(answer.body)).toEqual({ id: String(n), q: `x${n}`, body: { n }, header: `t${n}`, ip: '127.0.0.1', path: `/things/${n}` });
    }
    agent.destroy();
    expect(sockets.size).toBe(1);
    expect(preset).toEqual([true, true, true]);
  });
});
