import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { runDependentTasks } from '../../src/lib/dependent-tasks.js';

/** Runs the tasks, each taking its `ms`, and records when each started and ended and how many ran at once. */
async function record(tasks: { name: string; after?: string[]; ms: number; fails?: boolean }[], concurrency: number) {
  const log: string[] = [];
  let running = 0;
  let most = 0;
  const outcome = await runDependentTasks(tasks, concurrency, async (task) => {
    running += 1;
    most = Math.max(most, running);
    log.push(`start ${task.name}`);
    await sleep(task.ms);
    running -= 1;
    log.push(`end ${task.name}`);
    if (task.fails === true) throw new Error(`${task.name} failed`);
  }).then(
    () => null,
    (error: Error) => error.message,
  );
  return { log, most, outcome };
}

test('tasks run at most `concurrency` at a time, each after its dependencies, free slots going first to the earliest listed', async () => {
  const { log, most, outcome } = await record(
    [
      { name: 'tokens', ms: 10 },
      { name: 'balances', after: ['tokens'], ms: 60 },
      { name: 'instances', ms: 30 },
      { name: 'supply', after: ['balances'], ms: 5 },
      { name: 'counters', ms: 20 },
      { name: 'totals', after: ['counters'], ms: 5 },
    ],
    2,
  );
  assert.equal(outcome, null);
  assert.equal(most, 2);
  assert.deepEqual(log.slice(0, 3), ['start tokens', 'start instances', 'end tokens']);
  assert.equal(log[3], 'start balances', 'the first slot free goes to the earliest task listed that may start');
  for (const [task, dependency] of [
    ['balances', 'tokens'],
    ['supply', 'balances'],
    ['totals', 'counters'],
  ] as const) {
    assert.ok(log.indexOf(`start ${task}`) > log.indexOf(`end ${dependency}`), `${task} after ${dependency}: ${log.join(', ')}`);
  }
  assert.equal(log.filter((entry) => entry.startsWith('end')).length, 6);
});

test('a dependency not in the list counts as done by an earlier run', async () => {
  const { log, outcome } = await record([{ name: 'supply', after: ['balances'], ms: 1 }], 2);
  assert.equal(outcome, null);
  assert.deepEqual(log, ['start supply', 'end supply']);
});

test('after a failure no task starts; the running ones end before the failure is thrown', async () => {
  const { log, outcome } = await record(
    [
      { name: 'a', ms: 5, fails: true },
      { name: 'b', ms: 40 },
      { name: 'c', ms: 1 },
      { name: 'd', after: ['a'], ms: 1 },
    ],
    2,
  );
  assert.equal(outcome, 'a failed');
  assert.deepEqual(log, ['start a', 'start b', 'end a', 'end b']);
});

test('tasks that wait on each other are named, not waited for forever', async () => {
  const { outcome } = await record(
    [
      { name: 'a', after: ['b'], ms: 1 },
      { name: 'b', after: ['a'], ms: 1 },
    ],
    2,
  );
  assert.equal(outcome, 'tasks wait on each other: a, b');
});
