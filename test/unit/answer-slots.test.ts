import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type ServerResponse, createServer } from 'node:http';
import { type Socket, connect } from 'node:net';
import { once } from 'node:events';
import { AnswerSlots, AnswerSlotsFullError, handedOver } from '../../src/api/answer-slots.js';

/** A task that runs until released by hand, recording when it starts. */
function heldTask(started: string[], name: string) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const task = async () => {
    started.push(name);
    await released;
    return name;
  };
  return { task, release };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

test('at most `slots` tasks run at once; the others start in the order they came as slots free', async () => {
  const slots = new AnswerSlots(2, 10);
  const started: string[] = [];
  const tasks = ['a', 'b', 'c', 'd'].map((name) => heldTask(started, name));
  const answers = tasks.map(({ task }) => slots.run(task));
  await settle();
  assert.deepEqual(started, ['a', 'b']);
  tasks[1]!.release();
  await settle();
  assert.deepEqual(started, ['a', 'b', 'c']);
  tasks[0]!.release();
  await settle();
  assert.deepEqual(started, ['a', 'b', 'c', 'd']);
  tasks[2]!.release();
  tasks[3]!.release();
  assert.deepEqual(await Promise.all(answers), ['a', 'b', 'c', 'd']);
});

test("past the line's length a task is refused at once with a 503, and runs again once the line has room", async () => {
  const slots = new AnswerSlots(1, 2);
  const started: string[] = [];
  const tasks = ['a', 'b', 'c'].map((name) => heldTask(started, name));
  const answers = tasks.map(({ task }) => slots.run(task));
  const refused = await slots.run(async () => 'd').catch((error: unknown) => error);
  assert.ok(refused instanceof AnswerSlotsFullError);
  assert.equal(refused.statusCode, 503);
  tasks[0]!.release();
  await settle();
  assert.deepEqual(started, ['a', 'b']);
  const later = slots.run(async () => 'e');
  for (const { release } of tasks) release();
  assert.deepEqual(await Promise.all([...answers, later]), ['a', 'b', 'c', 'e']);
});

test('a task that fails frees its slot for the next', async () => {
  const slots = new AnswerSlots(1, 5);
  const failing = slots.run(async () => {
    await settle();
    throw new Error('no database');
  });
  const next = slots.run(async () => 'next');
  await assert.rejects(failing, /no database/);
  assert.equal(await next, 'next');
  // The slot is free again: the tasks after it run in turn.
  assert.deepEqual(await Promise.all([slots.run(async () => 1), slots.run(async () => 2)]), [1, 2]);
});

/**
 * A real server whose one answer is `bytes` long, and a raw client that asks for it: it reads the
 * answer only when told, or closes. Resolves with the server's response once sent to the socket.
 */
async function answerTo(bytes: number) {
  const server = createServer((_request, response) => void response.end(Buffer.alloc(bytes, 0x61)));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const responded = once(server, 'request') as Promise<[unknown, ServerResponse]>;
  const { port } = server.address() as { port: number };
  const client: Socket = connect(port, '127.0.0.1');
  client.pause();
  client.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
  const [, response] = await responded;
  return { response, client, close: () => (client.destroy(), server.closeAllConnections(), server.close()) };
}

test('an answer is handed over once the socket has taken it, or the client has gone, or at most after the wait given', async (t) => {
  const small = await answerTo(1000);
  t.after(small.close);
  let started = performance.now();
  await handedOver(small.response, 10_000);
  assert.ok(small.response.writableFinished, 'a small answer: the socket took it');
  assert.ok(performance.now() - started < 5_000, 'without waiting for the bound');

  // 256 MB: more than the kernel's buffers hold for a client that does not read.
  const large = await answerTo(256 * 1024 * 1024);
  t.after(large.close);
  started = performance.now();
  await handedOver(large.response, 300);
  assert.ok(performance.now() - started >= 290, 'waited for the bound');
  assert.equal(large.response.writableFinished, false, 'the client has read nothing: the answer is still being written');

  const gone = handedOver(large.response, 60_000);
  large.client.destroy();
  started = performance.now();
  await gone;
  assert.ok(performance.now() - started < 30_000, 'the client closing ends the wait');
});
