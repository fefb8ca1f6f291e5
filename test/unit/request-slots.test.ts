import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { once } from 'node:events';
import Fastify from 'fastify';
import { WAITING_PER_SLOT } from '../../src/api/answer-slots.js';
import { registerRequestSlots } from '../../src/api/request-slots.js';
import type { ApiApp } from '../../src/api/route.js';

/**
 * A server with one request slot whose `/held/:name` answers only once released by hand, recording
 * which handlers have started; `/quick` answers at once.
 */
async function heldServer(leaseMs: number) {
  const app = Fastify();
  const slots = registerRequestSlots(app as unknown as ApiApp, 1, leaseMs);
  const started: string[] = [];
  const releases = new Map<string, () => void>();
  const startedOnce = new Map<string, () => void>();
  const waitStarted = (name: string) =>
    started.includes(name) ? Promise.resolve() : new Promise<void>((resolve) => startedOnce.set(name, resolve));
  const handler = async (request: { params: unknown }) => {
    const { name } = request.params as { name: string };
    started.push(name);
    startedOnce.get(name)?.();
    await new Promise<void>((resolve) => releases.set(name, resolve));
    return { name };
  };
  app.get('/held/:name', handler);
  app.post('/held/:name', handler);
  app.get('/quick', async () => ({ quick: true }));
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  const release = (name: string) => {
    const resolve = releases.get(name);
    assert.ok(resolve, `${name} has not started`);
    resolve();
  };
  return { app, base, slots, started, release, waitStarted };
}

type HeldServer = Awaited<ReturnType<typeof heldServer>>;

/** Runs `use` against a fresh held server (`heldServer`), closed afterwards whatever happens. */
async function withHeldServer(leaseMs: number, use: (server: HeldServer) => Promise<void>): Promise<void> {
  const server = await heldServer(leaseMs);
  try {
    await use(server);
  } finally {
    await server.app.close();
  }
}

const settle = async (rounds = 20) => {
  for (let i = 0; i < rounds; i += 1) await new Promise((resolve) => setTimeout(resolve, 5));
};

test('routed GETs run one a slot: the next starts once the answer before it is written, in the order they came', async () => {
  await withHeldServer(60_000, async ({ base, started, release, waitStarted }) => {
    const answers = ['a', 'b', 'c'].map(async (name) => {
      const response = await fetch(`${base}/held/${name}`);
      return ((await response.json()) as { name: string }).name;
    });
    await waitStarted('a');
    await settle();
    assert.deepEqual(started, ['a']);
    release('a');
    await waitStarted('b');
    await settle();
    assert.deepEqual(started, ['a', 'b']);
    release('b');
    await waitStarted('c');
    release('c');
    assert.deepEqual(await Promise.all(answers), ['a', 'b', 'c']);
  });
});

test('a request that holds its slot past the lease lets the next one start, and still answers', async () => {
  await withHeldServer(100, async ({ base, release, waitStarted }) => {
    const first = fetch(`${base}/held/a`);
    await waitStarted('a');
    // With the lease, b starts while a still waits for its release: without it, this waits forever.
    const second = fetch(`${base}/held/b`);
    await waitStarted('b');
    release('b');
    release('a');
    assert.equal((await first).status, 200);
    assert.equal((await second).status, 200);
  });
});

test('requests other than GET and HEAD never wait for a slot', async () => {
  await withHeldServer(60_000, async ({ base, release, waitStarted }) => {
    const get = fetch(`${base}/held/a`);
    await waitStarted('a');
    const post = fetch(`${base}/held/b`, { method: 'POST' });
    await waitStarted('b');
    release('b');
    assert.equal((await post).status, 200);
    release('a');
    assert.equal((await get).status, 200);
  });
});

test('past the line of WAITING_PER_SLOT a request goes on at once rather than wait, and the slots count who holds and who waits', async () => {
  await withHeldServer(60_000, async ({ base, slots, started, release, waitStarted }) => {
    const first = fetch(`${base}/held/first`);
    await waitStarted('first');
    assert.deepEqual({ held: slots.held, waiting: slots.waiting }, { held: 1, waiting: 0 });
    const waiting = Array.from({ length: WAITING_PER_SLOT }, () => fetch(`${base}/quick`));
    await settle();
    assert.deepEqual({ held: slots.held, waiting: slots.waiting }, { held: 1, waiting: WAITING_PER_SLOT });
    const beyond = fetch(`${base}/held/beyond`);
    await waitStarted('beyond');
    assert.deepEqual(started, ['first', 'beyond']);
    release('beyond');
    assert.equal((await beyond).status, 200);
    release('first');
    assert.equal((await first).status, 200);
    for (const response of await Promise.all(waiting)) assert.equal(response.status, 200);
    assert.deepEqual({ held: slots.held, waiting: slots.waiting }, { held: 0, waiting: 0 });
  });
});

test('a client that leaves while it waits gives its slot back when its turn comes', async () => {
  await withHeldServer(60_000, async ({ base, release, waitStarted }) => {
    const first = fetch(`${base}/held/a`);
    await waitStarted('a');
    const { port } = new URL(base);
    const leaving = connect(Number(port), '127.0.0.1');
    await once(leaving, 'connect');
    leaving.write('GET /quick HTTP/1.1\r\nHost: localhost\r\n\r\n');
    await settle();
    leaving.destroy();
    await settle();
    release('a');
    assert.equal((await first).status, 200);
    // The slot would stay with the client that left for the whole lease (a minute): this answers at once.
    assert.equal((await fetch(`${base}/quick`)).status, 200);
  });
});
