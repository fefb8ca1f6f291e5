import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { subscribeNewHeads } from '../../src/chain/new-heads.js';
import { waitFor } from '../support/wait.js';

/** A websocket node that confirms newHeads subscriptions and can announce heads or drop its sockets. */
async function startHeadsServer(options: { refuse?: boolean } = {}) {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await once(server, 'listening');
  const subscribers = new Set<WebSocket>();
  let subscriptions = 0;
  server.on('connection', (socket) => {
    socket.on('message', (data) => {
      const call = JSON.parse(data.toString()) as { id: number; method: string };
      if (options.refuse) {
        socket.send(JSON.stringify({ jsonrpc: '2.0', id: call.id, error: { code: -32601, message: 'not supported' } }));
        return;
      }
      subscriptions += 1;
      socket.send(JSON.stringify({ jsonrpc: '2.0', id: call.id, result: `0x${subscriptions}` }));
      subscribers.add(socket);
      socket.on('close', () => subscribers.delete(socket));
    });
  });
  return {
    url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}`,
    subscriptions: () => subscriptions,
    announce() {
      for (const socket of subscribers) {
        socket.send(
          JSON.stringify({
            jsonrpc: '2.0',
            method: 'eth_subscription',
            params: { subscription: `0x${subscriptions}`, result: { number: '0x1' } },
          }),
        );
      }
    },
    dropAll() {
      for (const socket of subscribers) socket.terminate();
    },
    async stop() {
      for (const socket of server.clients) socket.terminate();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

test('announces each new head, and subscribes again after the socket drops', async () => {
  const server = await startHeadsServer();
  let heads = 0;
  const errors: string[] = [];
  const subscription = await subscribeNewHeads(server.url, { onHead: () => (heads += 1), onError: (e) => errors.push(e.message) });
  try {
    server.announce();
    server.announce();
    await waitFor(() => heads === 2, 'two heads arrive', { timeoutMs: 10_000 });
    server.dropAll();
    await waitFor(() => server.subscriptions() === 2, 'the subscription is made again', { timeoutMs: 10_000 });
    assert.match(errors[0] ?? '', /closed/);
    server.announce();
    await waitFor(() => heads === 3, 'a head arrives on the new socket', { timeoutMs: 10_000 });
  } finally {
    subscription.close();
    await server.stop();
  }
});

test('rejects when the node refuses the subscription or cannot be reached', async () => {
  const server = await startHeadsServer({ refuse: true });
  const handlers = { onHead: () => undefined, onError: () => undefined };
  try {
    await assert.rejects(subscribeNewHeads(server.url, handlers), /eth_subscribe newHeads refused.*not supported/);
  } finally {
    await server.stop();
  }
  await assert.rejects(subscribeNewHeads(server.url, handlers), /ECONNREFUSED/);
});
