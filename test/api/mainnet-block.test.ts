import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { TestDatabase } from '../support/database.js';
import { createMainnetBlockDatabase, loadMainnetBlock18000000 } from '../support/mainnet-fixtures.js';
import {
  expectedMainnetBlock,
  expectedMainnetTransactions,
  expectedMainnetWithdrawals,
  servedTransactionFields,
} from '../support/mainnet-expectations.js';
import { type RunningApi, collectList, startApi } from './http.js';

// Expected values come from test/support/mainnet-expectations.ts, computed from the node's JSON
// independently of the code under test.
const MINER = '0xdafea492d9c6733ae3d56b7ed1adb60692c98bc5';
const recorded = loadMainnetBlock18000000();

let db: TestDatabase;
let api: RunningApi;

before(async () => {
  db = await createMainnetBlockDatabase();
  api = await startApi(db.pool);
});

after(async () => {
  await api?.close();
  await db?.drop();
});

type Item = Record<string, any>;

test('E2 lists the 94 transactions of block 18,000,000 with their fees as Blockscout computes them', async () => {
  const list = await collectList(api, '/api/v2/transactions');
  assert.deepEqual(list.pageSizes, [50, 44]);
  assert.equal(list.items.length, expectedMainnetTransactions.length);
  for (const [i, item] of list.items.entries()) {
    const expected = expectedMainnetTransactions[i]!;
    assert.deepEqual(servedTransactionFields(item), expected, `transaction ${expected.hash}`);
  }
  // The recording holds both kinds of fee market, failures, a creation and known methods.
  const types = new Set(list.items.map((i: Item) => i.type));
  assert.ok(types.has(0) && types.has(2), `transaction types: ${[...types].join(', ')}`);
  assert.equal(list.items.filter((i: Item) => i.status === 'error').length, 2);
  assert.equal(list.items.filter((i: Item) => i.to === null).length, 1);
  assert.ok(
    list.items.some((i: Item) => i.method === 'transfer'),
    `methods: ${[...new Set(list.items.map((i: Item) => i.method))].join(', ')}`,
  );
});

test('E2 method=transfer and type filters select from block 18,000,000 as the recording says', async () => {
  const transfers = await collectList(api, '/api/v2/transactions', { method: 'transfer' });
  assert.deepEqual(
    transfers.items.map((i: Item) => i.hash),
    expectedMainnetTransactions.filter((t) => t.raw_input.startsWith('0xa9059cbb')).map((t) => t.hash),
  );
  const calls = await collectList(api, '/api/v2/transactions', { type: 'contract_call' });
  assert.deepEqual(
    calls.items.map((i: Item) => i.hash),
    expectedMainnetTransactions.filter((t) => t.to_is_contract === true).map((t) => t.hash),
  );
});

test('E5 lists block 18,000,000 for its miner with every field from the recording', async () => {
  const { status, body } = await api.get(`/api/v2/addresses/${MINER}/blocks-validated`);
  assert.equal(status, 200);
  assert.equal(body.next_page_params, null);
  assert.equal(body.items.length, 1);
  const item = body.items[0];
  assert.deepEqual(item, expectedMainnetBlock);
  assert.equal(item.miner.hash, '0xDAFEA492D9c6733ae3d56b7Ed1ADB60692c98Bc5');
});

test('E9 lists the 16 withdrawals of block 18,000,000 in wei, by number and by hash', async () => {
  for (const id of ['18000000', recorded.block.hash]) {
    const { status, body } = await api.get(`/api/v2/blocks/${id}/withdrawals`);
    assert.equal(status, 200);
    assert.equal(body.next_page_params, null);
    assert.deepEqual(body.items, expectedMainnetWithdrawals);
  }
  const first = (await api.get('/api/v2/blocks/18000000/withdrawals')).body.items[15];
  assert.deepEqual({ index: first.index, amount: first.amount }, { index: 0xeb9b8c, amount: (0xeb0d50n * 1_000_000_000n).toString() });
});

test('E9 answers 404 for the blocks around 18,000,000 that are not indexed', async () => {
  for (const id of ['17999999', '18000001']) {
    const { status, body } = await api.get(`/api/v2/blocks/${id}/withdrawals`);
    assert.equal(status, 404, id);
    assert.deepEqual(body, { message: 'Not found' }, id);
  }
});
