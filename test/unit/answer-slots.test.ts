import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AnswerSlots, AnswerSlotsFullError } from '../../src/api/answer-slots.js';

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
