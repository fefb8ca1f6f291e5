import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { BlockBundle } from '../../src/model.js';
import { retractBlocksFrom } from '../../src/store/retract-blocks.js';
import { writeBlockBundles } from '../../src/store/write-blocks.js';
import { type TestDatabase, bytea, createTestDatabase } from '../support/database.js';
import { expectedPercentage, expectedTimestamp } from '../support/expected-json.js';
import { syntheticAddress, syntheticChain } from '../support/synthetic-chain.js';
import { type RunningApi, collectList, startApi } from './http.js';

// Of blocks 1..200: `fifty` mines every 4th (exactly 50), `hundred` two in four (100: two full pages);
// blocks 201..260 are `sixty`'s, of which 255..260 lose consensus (54 remain: pages of 50 and 4).
const fifty = syntheticAddress('fifty');
const hundred = syntheticAddress('hundred');
const sixty = syntheticAddress('sixty');
const minerOf = (n: bigint) => (n > 200n ? sixty : n % 4n === 0n ? fifty : n % 4n === 3n ? syntheticAddress('other') : hundred);

let db: TestDatabase;
let api: RunningApi;
let bundles: BlockBundle[];

before(async () => {
  db = await createTestDatabase();
  bundles = syntheticChain({ from: 1n, to: 260n, transactionsPerBlock: (n) => Number(n % 3n), miner: minerOf });
  // One block with an odd gas use and a contract as its miner, for the percentages and AddressInfo.
  const odd = bundles[100]!.block;
  odd.gasUsed = 12_345_679n;
  odd.gasLimit = 30_000_001n;
  odd.uncles = [`0x${'ab'.repeat(32)}`] as `0x${string}`[];
  bundles[100]!.addresses = [{ hash: hundred, isContract: true }];
  await writeBlockBundles(db.pool, bundles);
  await retractBlocksFrom(db.pool, 255n);
  await db.pool.query(
    `INSERT INTO block_rewards (block_hash, address, type, reward)
     VALUES ($1, $2, 'validator', 2000000000000000000), ($1, $3, 'emission_funds', 123), ($1, $2, 'uncle', 5)`,
    [bytea(odd.hash), bytea(hundred), bytea(fifty)],
  );
  api = await startApi(db.pool);
});

after(async () => {
  await api?.close();
  await db?.drop();
});

const heights = (items: { height: number }[]) => items.map((b) => b.height);
const minedBy = (miner: string, below = 255) =>
  bundles
    .filter((b) => b.block.miner === miner && Number(b.block.number) < below)
    .map((b) => Number(b.block.number))
    .reverse();

test('lists the consensus blocks of a miner, highest first, across pages', async () => {
  const list = await collectList(api, `/api/v2/addresses/${sixty}/blocks-validated`);
  assert.deepEqual(heights(list.items), minedBy(sixty));
  assert.deepEqual(list.pageSizes, [50, 4]);
  assert.deepEqual(list.nextPageParams, [{ block_number: 205, items_count: 50 }]);
});

test('a miner of exactly 50 blocks gets one page and next_page_params null', async () => {
  const { status, body } = await api.get(`/api/v2/addresses/${fifty}/blocks-validated`);
  assert.equal(status, 200);
  assert.deepEqual(heights(body.items), minedBy(fifty));
  assert.equal(body.items.length, 50);
  assert.equal(body.next_page_params, null);
});

test('a miner of exactly 100 blocks gets two full pages, the second with next_page_params null', async () => {
  const list = await collectList(api, `/api/v2/addresses/${hundred}/blocks-validated`);
  assert.deepEqual(list.pageSizes, [50, 50]);
  assert.deepEqual(heights(list.items), minedBy(hundred));
});

test('the address is case-insensitive and checksums are not enforced', async () => {
  const lower = await api.get(`/api/v2/addresses/${fifty}/blocks-validated`);
  for (const variant of [fifty.toUpperCase().replace('0X', '0x'), `0x${fifty.slice(2, 10).toUpperCase()}${fifty.slice(10)}`]) {
    assert.deepEqual((await api.get(`/api/v2/addresses/${variant}/blocks-validated`)).body, lower.body);
  }
});

test('a valid but unknown address has an empty list', async () => {
  const { status, body } = await api.get(`/api/v2/addresses/0x${'0'.repeat(40)}/blocks-validated`);
  assert.equal(status, 200);
  assert.deepEqual(body, { items: [], next_page_params: null });
});

test('a block renders every Block field as Blockscout computes it', async () => {
  const { body } = await api.get(`/api/v2/addresses/${hundred}/blocks-validated?block_number=102&items_count=50`);
  const block = body.items[0];
  const source = bundles[100]!.block;
  assert.equal(block.height, 101);
  assert.equal(block.hash, source.hash);
  assert.equal(block.parent_hash, source.parentHash);
  assert.equal(block.timestamp, expectedTimestamp(source.timestamp));
  assert.equal(block.type, 'block');
  assert.equal(block.miner.hash.toLowerCase(), hundred);
  assert.notEqual(block.miner.hash, hundred, 'checksummed');
  assert.equal(block.miner.is_contract, true);
  assert.equal(block.nonce, '0x0000000000000000');
  assert.equal(block.difficulty, '0');
  assert.equal(block.total_difficulty, null);
  assert.equal(block.size, 1000);
  assert.equal(block.extra_data, '0x');
  assert.equal(block.state_root, source.stateRoot);
  assert.equal(block.gas_limit, '30000001');
  assert.equal(block.gas_used, '12345679');
  assert.equal(block.gas_used_percentage, expectedPercentage(12_345_679n, 30_000_001n));
  assert.equal(block.gas_target_percentage, expectedPercentage(2n * 12_345_679n - 30_000_001n, 30_000_001n));
  assert.equal(block.base_fee_per_gas, '1000000000');
  assert.equal(block.burnt_fees, source.burntFees.toString());
  assert.equal(block.priority_fee, source.priorityFee.toString());
  assert.equal(block.transaction_fees, source.transactionFees.toString());
  assert.equal(block.burnt_fees_percentage, expectedPercentage(source.burntFees, source.transactionFees));
  assert.equal(block.transactions_count, 2);
  assert.equal(block.withdrawals_count, 0);
  assert.equal(block.blob_transactions_count, 0);
  assert.equal(block.beacon_deposits_count, 0);
  assert.equal(block.internal_transactions_count, null);
  assert.deepEqual(block.uncles_hashes, [`0x${'ab'.repeat(32)}`]);
  assert.deepEqual(
    [...block.rewards].sort((a: { reward: string }, b: { reward: string }) => a.reward.localeCompare(b.reward)),
    [
      { reward: '123', type: 'Emission Reward' },
      { reward: '2000000000000000000', type: 'Miner Reward' },
      { reward: '5', type: 'Uncle Reward' },
    ],
  );
  assert.deepEqual(Object.keys(block), [...Object.keys(block)].sort());
});

test('an empty block has 0 transaction fees: burnt_fees_percentage null, gas target −100', async () => {
  const { body } = await api.get(`/api/v2/addresses/${sixty}/blocks-validated?block_number=253&items_count=50`);
  const empty = body.items.find((b: { height: number }) => b.height === 252);
  assert.equal(empty.transactions_count, 0);
  assert.equal(empty.transaction_fees, '0');
  assert.equal(empty.burnt_fees_percentage, null);
  assert.equal(empty.gas_used_percentage, 0);
  assert.equal(empty.gas_target_percentage, -100);
  assert.deepEqual(empty.rewards, []);
});

async function pointers(path: string): Promise<string[]> {
  const response = await api.get(path);
  assert.equal(response.status, 422, `${path}: ${response.text}`);
  return response.body.errors.map((e: { title: string; source: { pointer: string } }) => {
    assert.equal(e.title, 'Invalid value');
    return e.source.pointer;
  });
}

test('a malformed address or paging parameter is a 422 naming it', async () => {
  for (const address of [
    '0x123',
    '0x',
    'abc',
    fifty.slice(2),
    `0X${fifty.slice(2)}`,
    `${fifty}00`,
    `0x${'g'.repeat(40)}`,
    `0x${'a'.repeat(500)}`,
  ]) {
    assert.deepEqual(await pointers(`/api/v2/addresses/${address}/blocks-validated`), ['/address_hash'], address);
  }
  assert.deepEqual(await pointers(`/api/v2/addresses/${fifty}/blocks-validated?block_number=ten`), ['/block_number']);
  assert.deepEqual(await pointers(`/api/v2/addresses/${fifty}/blocks-validated?block_number=-3`), ['/block_number']);
  assert.deepEqual(await pointers(`/api/v2/addresses/${fifty}/blocks-validated?block_number=`), ['/block_number']);
  assert.deepEqual(await pointers(`/api/v2/addresses/${fifty}/blocks-validated?items_count=100`), ['/items_count']);
  assert.deepEqual(await pointers(`/api/v2/addresses/0x1/blocks-validated?block_number=x`), ['/address_hash', '/block_number']);
  const detail = (await api.get('/api/v2/addresses/0x123/blocks-validated')).body.errors[0].detail;
  assert.match(detail, /40 hex digits/);
  assert.match(detail, /0x123/);
});
