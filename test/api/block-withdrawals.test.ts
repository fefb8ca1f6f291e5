import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { BlockBundle, WithdrawalRecord } from '../../src/model.js';
import { retractBlocksFrom } from '../../src/store/retract-blocks.js';
import { writeBlockBundles } from '../../src/store/write-blocks.js';
import { type TestDatabase, bytea, createTestDatabase } from '../support/database.js';
import { syntheticAddress, syntheticChain } from '../support/synthetic-chain.js';
import { type RunningApi, collectList, startApi } from './http.js';

// Blocks 1..12; 9..12 then lose consensus and a fork replaces 10 and 11 only, so that height 9 has
// no consensus block (its block lost consensus) and 12 is above the indexed head.
const withdrawalCounts: Record<number, number> = { 3: 120, 4: 50, 6: 16 };
const GWEI = 1_000_000_000n;

let db: TestDatabase;
let api: RunningApi;
let bundles: BlockBundle[];
let fork: BlockBundle[];

function withdrawalsOf(bundle: BlockBundle, count: number): WithdrawalRecord[] {
  return Array.from({ length: count }, (_, i) => ({
    blockHash: bundle.block.hash,
    blockNumber: bundle.block.number,
    index: bundle.block.number * 1000n + BigInt(i),
    validatorIndex: 500_000n + BigInt(i),
    address: syntheticAddress(`validator${i % 7}`),
    amount: (15_000_000n + BigInt(i)) * GWEI,
  }));
}

before(async () => {
  db = await createTestDatabase();
  bundles = syntheticChain({ from: 1n, to: 12n, transactionsPerBlock: () => 1 });
  for (const bundle of bundles) {
    bundle.withdrawals = withdrawalsOf(bundle, withdrawalCounts[Number(bundle.block.number)] ?? 0);
    bundle.block.withdrawalsCount = bundle.withdrawals.length;
  }
  bundles[5]!.addresses = [{ hash: syntheticAddress('validator3'), isContract: true }];
  await writeBlockBundles(db.pool, bundles);
  await retractBlocksFrom(db.pool, 9n);
  fork = syntheticChain({ from: 10n, to: 11n, transactionsPerBlock: () => 0, salt: 'fork' });
  fork[0]!.withdrawals = withdrawalsOf(fork[0]!, 2);
  await writeBlockBundles(db.pool, fork);
  // Rows of a block that lost consensus are removed with it; one is put back to show that a
  // lookup by hash does not filter on consensus.
  await db.pool.query(
    'INSERT INTO withdrawals (block_hash, index, block_number, validator_index, address, amount) VALUES ($1, 1, 9, 2, $2, 3)',
    [bytea(bundles[8]!.block.hash), bytea(syntheticAddress('validator0'))],
  );
  api = await startApi(db.pool);
});

after(async () => {
  await api?.close();
  await db?.drop();
});

const indexes = (items: { index: number }[]) => items.map((w) => w.index);
const expectedIndexes = (bundle: BlockBundle) => bundle.withdrawals.map((w) => Number(w.index)).reverse();

test('pages through a block of 120 withdrawals by index, highest first', async () => {
  for (const id of ['3', bundles[2]!.block.hash]) {
    const list = await collectList(api, `/api/v2/blocks/${id}/withdrawals`);
    assert.deepEqual(indexes(list.items), expectedIndexes(bundles[2]!));
    assert.deepEqual(list.pageSizes, [50, 50, 20]);
    assert.deepEqual(list.nextPageParams, [
      { index: 3070, items_count: 50 },
      { index: 3020, items_count: 50 },
    ]);
  }
});

test('a block of exactly 50 withdrawals is one page with next_page_params null', async () => {
  const { status, body } = await api.get('/api/v2/blocks/4/withdrawals');
  assert.equal(status, 200);
  assert.equal(body.items.length, 50);
  assert.equal(body.next_page_params, null);
});

test('a block without withdrawals has an empty list', async () => {
  assert.deepEqual((await api.get('/api/v2/blocks/5/withdrawals')).body, { items: [], next_page_params: null });
});

test('a withdrawal renders without block_number and timestamp, its amount in wei', async () => {
  const { body } = await api.get('/api/v2/blocks/6/withdrawals');
  assert.equal(body.items.length, 16);
  const first = body.items[0];
  assert.deepEqual(Object.keys(first), ['amount', 'index', 'receiver', 'validator_index']);
  assert.equal(first.index, 6015);
  assert.equal(first.validator_index, 500_015);
  assert.equal(first.amount, ((15_000_000n + 15n) * GWEI).toString());
  assert.equal(first.receiver.hash.toLowerCase(), syntheticAddress('validator1'));
  assert.notEqual(first.receiver.hash, syntheticAddress('validator1'), 'checksummed');
  assert.equal(first.receiver.is_contract, false);
  assert.equal(body.items.find((w: { index: number }) => w.index === 6003).receiver.is_contract, true);
});

test('leading zeros name the same block number', async () => {
  assert.deepEqual((await api.get('/api/v2/blocks/006/withdrawals')).body, (await api.get('/api/v2/blocks/6/withdrawals')).body);
});

test('a block hash is case-insensitive', async () => {
  const hash = bundles[5]!.block.hash;
  const upper = `0x${hash.slice(2).toUpperCase()}`;
  assert.deepEqual((await api.get(`/api/v2/blocks/${upper}/withdrawals`)).body, (await api.get('/api/v2/blocks/6/withdrawals')).body);
});

test('a number whose block lost consensus is a 404 that says so, with the hash', async () => {
  const { status, body } = await api.get('/api/v2/blocks/9/withdrawals');
  assert.equal(status, 404);
  assert.deepEqual(body, { message: 'Block lost consensus', hash: bundles[8]!.block.hash });
});

test('a block that lost consensus is served by hash', async () => {
  const { status, body } = await api.get(`/api/v2/blocks/${bundles[8]!.block.hash}/withdrawals`);
  assert.equal(status, 200);
  assert.deepEqual(indexes(body.items), [1]);
  assert.equal(body.items[0].amount, '3');
});

test('the replacing block is served by number', async () => {
  const { body } = await api.get('/api/v2/blocks/10/withdrawals');
  assert.deepEqual(indexes(body.items), expectedIndexes(fork[0]!));
});

test('an unknown block, or a number above the indexed head, is a 404 Not found', async () => {
  for (const id of ['12', '13', '18000000', '99999999999999999999999999', `0x${'1'.repeat(64)}`]) {
    const { status, body } = await api.get(`/api/v2/blocks/${id}/withdrawals`);
    assert.equal(status, 404, id);
    assert.deepEqual(body, { message: 'Not found' }, id);
  }
});

test('a malformed block number or hash is a 422 naming block_number_or_hash', async () => {
  for (const id of [
    '0x123123',
    '123qwe',
    '-5',
    '1.5',
    'latest',
    `0x${'1'.repeat(63)}`,
    `0x${'1'.repeat(65)}`,
    `0x${'z'.repeat(64)}`,
    '%20',
    '0x',
    'x'.repeat(3000),
  ]) {
    const response = await api.get(`/api/v2/blocks/${id}/withdrawals`);
    assert.equal(response.status, 422, `${id}: ${response.text}`);
    assert.deepEqual(
      response.body.errors.map((e: { source: { pointer: string } }) => e.source.pointer),
      ['/block_number_or_hash'],
      id,
    );
  }
});

test('malformed paging parameters are a 422 naming them', async () => {
  for (const [query, pointer] of [
    ['index=x', '/index'],
    ['index=-1', '/index'],
    ['index=', '/index'],
    ['items_count=0', '/items_count'],
    ['index=3000&items_count=51', '/items_count'],
  ]) {
    const response = await api.get(`/api/v2/blocks/3/withdrawals?${query}`);
    assert.equal(response.status, 422, query);
    assert.deepEqual(
      response.body.errors.map((e: { source: { pointer: string } }) => e.source.pointer),
      [pointer],
      query,
    );
  }
});
