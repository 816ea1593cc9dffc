// The socket's key watch (server.ts, key-watch.ts) is removed when the socket closes, also when it
// closes while its connection_init is still being judged: graphql-ws calls onClose before the
// pending onConnect resumes, and a watch set after that would never be removed (a watcher and an
// event-bus subscription per such socket, for the life of the process).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import WebSocket from 'ws';
import { afterEach, describe, expect, it } from 'vitest';
import { attachWebSocketServer, type Yoga } from '../../src/graphql/server.js';
import type { Actor, KeyWatch } from '../../src/modules/accounts/index.js';

let server: Server | undefined;
let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  await new Promise((resolve) => server?.close(resolve));
});

describe('a socket closed during its connection_init', () => {
  it('leaves no key watch behind', async () => {
    const watching = new Set<number>();
    let next = 0;
    const keyWatch = {
      watch: () => {
        const id = next++;
        watching.add(id);
        return () => watching.delete(id);
      },
    } as unknown as KeyWatch;
    let admit!: () => void;
    const judged = new Promise<void>((resolve) => (admit = resolve));
    let asked!: () => void;
    const judging = new Promise<void>((resolve) => (asked = resolve));
    const actor = { accountId: 1, keyId: 1, keyKind: 'master' } as Actor;
    server = createServer();
    close = attachWebSocketServer(server, {} as Yoga, 1 << 20, async () => (asked(), await judged, actor), keyWatch);
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const socket = new WebSocket(`ws://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`, 'graphql-transport-ws');
    await new Promise((resolve) => socket.once('open', resolve));
    socket.send(JSON.stringify({ type: 'connection_init', payload: { 'X-API-Key': 'mk_x' } }));
    await judging;
    // The client goes away while the key is judged; the server sees the close first.
    const closed = new Promise((resolve) => socket.once('close', resolve));
    socket.terminate();
    await closed;
    await new Promise((resolve) => setTimeout(resolve, 50));
    admit();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(watching.size).toBe(0);
  });
});
