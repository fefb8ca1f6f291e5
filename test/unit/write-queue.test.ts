import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createWriteQueue } from '../../src/indexer/blocks/write-queue.js';

/** A promise to hold the queue with, released by hand. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

function recordingQueue(fail?: (items: number[]) => boolean) {
  const log: string[] = [];
  const queue = createWriteQueue<number>(async (items) => {
    await Promise.resolve();
    if (fail?.(items)) throw new Error(`write of ${items.join(',')} failed`);
    log.push(`write ${items.join(',')}`);
  });
  return { log, queue };
}

test('items stored while the queue is busy are written together, in the order stored', async () => {
  const { log, queue } = recordingQueue();
  const hold = gate();
  const held = queue.exclusive(async () => {
    await hold.opened;
    log.push('task');
  });
  const stored = [queue.store([1, 2]), queue.store([3]), queue.store([4, 5])];
  hold.open();
  await Promise.all([held, ...stored]);
  assert.deepEqual(log, ['task', 'write 1,2,3,4,5']);
});

test('an exclusive task queued between two writes keeps them apart and runs between them', async () => {
  const { log, queue } = recordingQueue();
  const hold = gate();
  const done = [
    queue.exclusive(() => hold.opened),
    queue.store([1]),
    queue.exclusive(async () => void log.push('task')),
    queue.store([2]),
    queue.store([3]),
  ];
  hold.open();
  await Promise.all(done);
  assert.deepEqual(log, ['write 1', 'task', 'write 2,3']);
});

test('items stored while a write runs go into the next write', async () => {
  const hold = gate();
  const log: string[] = [];
  const queue = createWriteQueue<number>(async (items) => {
    if (items[0] === 1) await hold.opened;
    log.push(`write ${items.join(',')}`);
  });
  const first = queue.store([1]);
  await new Promise((resolve) => setImmediate(resolve));
  const later = [queue.store([2]), queue.store([3])];
  hold.open();
  await Promise.all([first, ...later]);
  assert.deepEqual(log, ['write 1', 'write 2,3']);
});

test('a failed write rejects every store it held, and the queue goes on', async () => {
  const { log, queue } = recordingQueue((items) => items.includes(2));
  const hold = gate();
  const held = queue.exclusive(() => hold.opened);
  const failed = [queue.store([1]), queue.store([2])];
  const after = queue.exclusive(async () => void log.push('task'));
  const next = queue.store([3]);
  hold.open();
  await held;
  for (const store of failed) await assert.rejects(store, /write of 1,2 failed/);
  await Promise.all([after, next]);
  assert.deepEqual(log, ['task', 'write 3']);
});
