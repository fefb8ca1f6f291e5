import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { getAddress } from 'viem';
import type { RpcLog, RpcTransaction } from '../../src/chain/rpc-types.js';
import { replacePendingTransactions } from '../../src/store/pending-transactions.js';
import type { TestDatabase } from '../support/database.js';
import { expectedAddressInfo, expectedTimestamp } from '../support/expected-json.js';
import { mainnetKnownContracts } from '../support/mainnet-expectations.js';
import { createMainnetBlockDatabase, loadMainnetBlock18000000 } from '../support/mainnet-fixtures.js';
import { type RunningApi, assertFullPages, collectList, startApi } from './http.js';

// The logs of mainnet block 18,000,000 as the API must serve them, computed from the recorded
// receipts alone: 291 logs from 75 contracts, one transaction with 51 logs, WETH with 55.
const recorded = loadMainnetBlock18000000();
const allLogs: RpcLog[] = recorded.receipts.flatMap((r) => r.logs);
const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
const WETH = '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2';

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

const contractInfo = (hash: string | null | undefined) =>
  hash == null ? null : expectedAddressInfo(getAddress(hash), mainnetKnownContracts.has(hash.toLowerCase()));

/** A recorded log as Blockscout's Log: four topics, null past the log's own; no ABI, so decoded is null. */
function expectedLog(log: RpcLog, smartContract: ReturnType<typeof contractInfo>) {
  return {
    address: expectedAddressInfo(getAddress(log.address), true),
    block_hash: recorded.block.hash,
    block_number: Number(BigInt(recorded.block.number)),
    block_timestamp: expectedTimestamp(BigInt(recorded.block.timestamp)),
    data: log.data,
    decoded: null,
    index: Number(BigInt(log.logIndex)),
    smart_contract: smartContract,
    topics: [0, 1, 2, 3].map((i) => log.topics[i] ?? null),
    transaction_hash: log.transactionHash,
  };
}

const byIndex = (a: RpcLog, b: RpcLog) => Number(BigInt(a.logIndex) - BigInt(b.logIndex));

test("every transaction's logs are its receipt's logs, in log index order, every field, every page", async () => {
  const transactions = recorded.block.transactions as RpcTransaction[];
  let served = 0;
  for (const [i, tx] of transactions.entries()) {
    const receipt = recorded.receipts[i]!;
    assert.equal(receipt.transactionHash, tx.hash);
    const list = await collectList(api, `/api/v2/transactions/${tx.hash}/logs`);
    assertFullPages(list);
    const expected = [...receipt.logs].sort(byIndex).map((log) => expectedLog(log, contractInfo(tx.to)));
    assert.deepEqual(list.items, expected, `logs of ${tx.hash}`);
    served += list.items.length;
    if (receipt.logs.length === 51) {
      // The 51-log transaction pages as Blockscout does: 50, then 1, continuing after the 50th index.
      assert.deepEqual(list.pageSizes, [50, 1]);
      assert.deepEqual(list.nextPageParams, [{ block_number: 18_000_000, index: expected[49]!.index, items_count: 50 }]);
    }
  }
  assert.equal(served, allLogs.length);
  assert.ok(
    recorded.receipts.some((r) => r.logs.length === 51),
    'the recording has a transaction with more than a page of logs',
  );
});

test('an address lists exactly the logs it emitted, newest first, every page', async () => {
  const emitters = [...new Set(allLogs.map((l) => l.address.toLowerCase()))];
  assert.equal(emitters.length, 75);
  let served = 0;
  for (const address of emitters) {
    const list = await collectList(api, `/api/v2/addresses/${address}/logs`);
    assertFullPages(list);
    const expected = allLogs
      .filter((l) => l.address.toLowerCase() === address)
      .sort((a, b) => byIndex(b, a))
      .map((log) => expectedLog(log, null));
    assert.deepEqual(list.items, expected, `logs of ${address}`);
    served += list.items.length;
  }
  assert.equal(served, allLogs.length);
  const weth = await collectList(api, `/api/v2/addresses/${getAddress(WETH)}/logs`);
  assert.deepEqual(weth.pageSizes, [50, 5]);
  assert.deepEqual(weth.nextPageParams, [{ block_number: 18_000_000, index: weth.items[49].index, items_count: 50 }]);
});

test('topic selects the logs of an address that carry it in any of their four topics', async () => {
  const carrying = (topic: string) =>
    allLogs
      .filter((l) => l.address.toLowerCase() === WETH && l.topics.some((t) => t.toLowerCase() === topic.toLowerCase()))
      .sort((a, b) => byIndex(b, a))
      .map((log) => expectedLog(log, null));
  const transfers = await collectList(api, `/api/v2/addresses/${WETH}/logs`, { topic: TRANSFER_TOPIC.toUpperCase().replace('0X', '0x') });
  assert.ok(transfers.items.length > 0);
  assert.deepEqual(transfers.items, carrying(TRANSFER_TOPIC));
  // A topic in second place: the recipient of a WETH transfer.
  const recipient = allLogs.find((l) => l.address.toLowerCase() === WETH && l.topics[0] === TRANSFER_TOPIC)!.topics[2]!;
  const received = await collectList(api, `/api/v2/addresses/${WETH}/logs`, { topic: recipient });
  assert.ok(received.items.length > 0);
  assert.deepEqual(received.items, carrying(recipient));
  const none = await api.get(`/api/v2/addresses/${WETH}/logs?topic=0x${'00'.repeat(32)}`);
  assert.deepEqual(none.body, { items: [], next_page_params: null });
  const unfiltered = await collectList(api, `/api/v2/addresses/${WETH}/logs`, { topic: '' });
  assert.equal(unfiltered.items.length, 55);
});

test('an unknown transaction is a 404, an unknown address an empty list, a pool transaction an empty list', async () => {
  const unknown = await api.get(`/api/v2/transactions/0x${'ab'.repeat(32)}/logs`);
  assert.equal(unknown.status, 404);
  assert.deepEqual(unknown.body, { message: 'Not found' });
  const nobody = await api.get(`/api/v2/addresses/0x${'12'.repeat(20)}/logs`);
  assert.equal(nobody.status, 200);
  assert.deepEqual(nobody.body, { items: [], next_page_params: null });
  const pooled = `0x${'cd'.repeat(32)}` as const;
  await replacePendingTransactions(db.pool, [
    {
      hash: pooled,
      from: `0x${'01'.repeat(20)}`,
      to: WETH,
      nonce: 0n,
      type: 2,
      value: 0n,
      gasLimit: 21_000n,
      gasPrice: null,
      maxFeePerGas: 10n,
      maxPriorityFeePerGas: 1n,
      input: '0x',
    },
  ]);
  const pending = await api.get(`/api/v2/transactions/${pooled}/logs`);
  assert.equal(pending.status, 200);
  assert.deepEqual(pending.body, { items: [], next_page_params: null });
  await replacePendingTransactions(db.pool, []);
  assert.equal((await api.get(`/api/v2/transactions/${pooled}/logs`)).status, 404);
});

test('malformed input is a 422 naming each bad parameter, never a 500', async () => {
  const tx = (recorded.block.transactions as RpcTransaction[])[0]!.hash;
  const cases: [string, string[]][] = [
    ['/api/v2/transactions/0x1234/logs', ['transaction_hash']],
    [`/api/v2/transactions/${tx}/logs?index=3`, ['block_number']],
    [`/api/v2/transactions/${tx}/logs?block_number=18000000&index=abc`, ['index']],
    [`/api/v2/transactions/${tx}/logs?block_number=-1&index=3`, ['block_number']],
    [`/api/v2/transactions/${tx}/logs?block_number=18000000&index=3&items_count=0`, ['items_count']],
    ['/api/v2/addresses/0xnothex/logs', ['address_hash']],
    [`/api/v2/addresses/${WETH}/logs?topic=0x12`, ['topic']],
    [`/api/v2/addresses/${WETH}/logs?block_number=18000000`, ['index']],
    [`/api/v2/addresses/${WETH}/logs?block_number=x&index=99999999999`, ['block_number', 'index']],
  ];
  for (const [path, params] of cases) {
    const { status, body } = await api.get(path);
    assert.equal(status, 422, path);
    assert.deepEqual(body.errors.map((e: any) => e.source.pointer).sort(), params.map((p) => `/${p}`).sort(), path);
  }
});
