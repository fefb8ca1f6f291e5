import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { BlockBundle, WithdrawalRecord } from '../../src/model.js';
import { retractBlocksFrom } from '../../src/store/retract-blocks.js';
import { writeBlockBundles } from '../../src/store/write-blocks.js';
import { type TestDatabase, createTestDatabase } from '../support/database.js';
import { syntheticAddress, syntheticChain } from '../support/synthetic-chain.js';
import { type RunningApi, assertFullPages, collectList, startApi } from './http.js';

// Blocks 1..9 with withdrawals in some; 7..9 then lose consensus and a fork replaces 7 and 8, with
// withdrawals of its own: the chain-wide list holds the consensus blocks' withdrawals only.
const withdrawalCounts: Record<number, number> = { 2: 16, 3: 70, 5: 1, 7: 16, 8: 16 };
const GWEI = 1_000_000_000n;

let db: TestDatabase;
let api: RunningApi;
let consensus: BlockBundle[];

function withdrawalsOf(bundle: BlockBundle, count: number, first: bigint): WithdrawalRecord[] {
  return Array.from({ length: count }, (_, i) => ({
    blockHash: bundle.block.hash,
    blockNumber: bundle.block.number,
    index: first + BigInt(i),
    validatorIndex: 900_000n + BigInt(i % 9),
    address: syntheticAddress(`receiver${i % 5}`),
    amount: (20_000_000n + BigInt(i)) * GWEI,
  }));
}

/** Withdrawal indexes rise with the chain, as the beacon chain numbers them. */
function addWithdrawals(bundles: BlockBundle[], first: bigint): bigint {
  let next = first;
  for (const bundle of bundles) {
    bundle.withdrawals = withdrawalsOf(bundle, withdrawalCounts[Number(bundle.block.number)] ?? 0, next);
    bundle.block.withdrawalsCount = bundle.withdrawals.length;
    next += BigInt(bundle.withdrawals.length);
  }
  return next;
}

before(async () => {
  db = await createTestDatabase();
  const bundles = syntheticChain({ from: 1n, to: 9n, transactionsPerBlock: () => 1 });
  const next = addWithdrawals(bundles.slice(0, 6), 1_000n);
  addWithdrawals(bundles.slice(6), next);
  await writeBlockBundles(db.pool, bundles);
  await retractBlocksFrom(db.pool, 7n);
  const fork = syntheticChain({ from: 7n, to: 8n, transactionsPerBlock: () => 0, salt: 'fork', parentHash: bundles[5]!.block.hash });
  addWithdrawals(fork, next + 5n);
  await writeBlockBundles(db.pool, fork);
  consensus = [...bundles.slice(0, 6), ...fork];
  api = await startApi(db.pool);
});

after(async () => {
  await api?.close();
  await db?.drop();
});

test("pages through every consensus block's withdrawals, highest index first, with their blocks' number and time", async () => {
  const list = await collectList(api, '/api/v2/withdrawals');
  assertFullPages(list);
  const expected = consensus
    .flatMap((bundle) => bundle.withdrawals.map((w) => ({ bundle, w })))
    .sort((a, b) => Number(b.w.index - a.w.index));
  assert.equal(expected.length, 16 + 70 + 1 + 16 + 16);
  assert.deepEqual(list.pageSizes, [50, 50, 19]);
  assert.deepEqual(
    list.items.map((item) => [
      item.index,
      item.block_number,
      item.timestamp,
      item.validator_index,
      item.amount,
      item.receiver.hash.toLowerCase(),
    ]),
    expected.map(({ bundle, w }) => [
      Number(w.index),
      Number(bundle.block.number),
      new Date(Number(bundle.block.timestamp) * 1000).toISOString().replace('Z', '000Z'),
      Number(w.validatorIndex),
      w.amount.toString(),
      w.address,
    ]),
  );
  assert.deepEqual(list.nextPageParams[0], { index: Number(expected[49]!.w.index), items_count: 50 });
  assert.deepEqual(Object.keys(list.items[0]), ['amount', 'block_number', 'index', 'receiver', 'timestamp', 'validator_index']);
});

test('malformed paging parameters are a 422 naming them', async () => {
  for (const [query, pointer] of [
    ['index=x', '/index'],
    ['index=-1', '/index'],
    ['index=1e3', '/index'],
    ['index=', '/index'],
    ['items_count=0', '/items_count'],
  ]) {
    const response = await api.get(`/api/v2/withdrawals?${query}`);
    assert.equal(response.status, 422, query);
    assert.deepEqual(
      response.body.errors.map((e: { source: { pointer: string } }) => e.source.pointer),
      [pointer],
      query,
    );
  }
});
