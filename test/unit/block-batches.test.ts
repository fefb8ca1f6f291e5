import { test } from 'node:test';
import assert from 'node:assert/strict';
import { blockBatches } from '../../src/indexer/blocks/block-batches.js';

// How the indexer splits the ranges it is missing into batches (src/indexer/block-batches.ts).

test('each range is cut into runs of at most `size` consecutive numbers, ascending; a batch never spans two ranges', () => {
  const batches = [
    ...blockBatches(
      [
        { from: 0n, to: 6n },
        { from: 10n, to: 10n },
        { from: 12n, to: 14n },
      ],
      3,
    ),
  ];
  assert.deepEqual(batches, [[0n, 1n, 2n], [3n, 4n, 5n], [6n], [10n], [12n, 13n, 14n]]);
});

test('a range of exactly `size` numbers is one batch; no ranges, no batches', () => {
  assert.deepEqual([...blockBatches([{ from: 18_000_000n, to: 18_000_003n }], 4)], [[18_000_000n, 18_000_001n, 18_000_002n, 18_000_003n]]);
  assert.deepEqual([...blockBatches([], 4)], []);
});

test('batches of one', () => {
  assert.deepEqual([...blockBatches([{ from: 5n, to: 7n }], 1)], [[5n], [6n], [7n]]);
});
