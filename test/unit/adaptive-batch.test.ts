import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AdaptiveBatchSize } from '../../src/indexer/blocks/adaptive-batch.js';

test('halves on each failure down to one, and grows back by one per run of successes up to the ceiling', () => {
  const size = new AdaptiveBatchSize(10, 2);
  assert.equal(size.current, 10);
  size.onFailure();
  assert.equal(size.current, 5);
  size.onFailure();
  size.onFailure();
  size.onFailure();
  assert.equal(size.current, 1);
  size.onFailure();
  assert.equal(size.current, 1);
  const grown: number[] = [];
  for (let i = 0; i < 22; i++) {
    size.onSuccess();
    grown.push(size.current);
  }
  assert.deepEqual(grown, [1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 10, 10, 10]);
  size.onSuccess();
  size.onFailure();
  assert.equal(size.current, 5, 'a failure after growing halves again');
});

test('a failure restarts the run of successes', () => {
  const size = new AdaptiveBatchSize(4, 3);
  size.onFailure();
  size.onSuccess();
  size.onSuccess();
  size.onFailure();
  assert.equal(size.current, 1);
  size.onSuccess();
  size.onSuccess();
  assert.equal(size.current, 1);
  size.onSuccess();
  assert.equal(size.current, 2);
});

test('refuses a ceiling that is not a positive integer', () => {
  assert.throws(() => new AdaptiveBatchSize(0), RangeError);
  assert.throws(() => new AdaptiveBatchSize(2.5), RangeError);
});
