import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { complainAbout } from '../../src/chain/node-fields.js';
import { decodeParityTraces } from '../../src/chain/parity-traces.js';
import type { BlockTraces, Hex } from '../../src/model.js';
import { replacePendingTransactions } from '../../src/store/pending-transactions.js';
import { retractBlocksFrom } from '../../src/store/retract-blocks.js';
import { writeBlockBundles } from '../../src/store/write-blocks.js';
import { writeBlockTraces } from '../../src/store/write-traces.js';
import type { TestDatabase } from '../support/database.js';
import { expectedMainnetBlock } from '../support/mainnet-expectations.js';
import { MAINNET_BLOCK_NUMBER, createMainnetBlockDatabase, loadMainnetBlock18000000 } from '../support/mainnet-fixtures.js';
import { bundleFor, recordedParityBlocks } from '../support/trace-fixtures.js';
import { type RunningApi, collectList, startApi } from './http.js';

// Block 18,000,000 as recorded (94 transactions, ERC-20 and NFT transfers) and two traced mainnet
// blocks (trace_block recordings): every expected list below comes from E2, E7 and E8, or from the
// recordings themselves, never from the endpoints under test.
const recorded = loadMainnetBlock18000000();
const complain = complainAbout('fixture');
const pendingHash = `0x${'5e'.repeat(32)}` as Hex;

type Item = Record<string, any>;

let db: TestDatabase;
let api: RunningApi;

before(async () => {
  db = await createMainnetBlockDatabase();
  const traces: BlockTraces[] = [];
  for (const { number, traces: frames } of recordedParityBlocks) {
    const blockHash = frames[0].blockHash as Hex;
    const tops = frames.filter((t) => t.type !== 'reward' && t.traceAddress.length === 0);
    await writeBlockBundles(db.pool, [
      bundleFor(
        number,
        blockHash,
        tops.map((t) => ({ hash: t.transactionHash, input: t.action.input ?? t.action.init })),
      ),
    ]);
    traces.push({ blockHash, blockNumber: number, ...decodeParityTraces(frames, blockHash, complain) });
  }
  await writeBlockTraces(db.pool, traces);
  await replacePendingTransactions(db.pool, [
    {
      hash: pendingHash,
      from: '0x00000000000000000000000000000000000000aa',
      to: '0x00000000000000000000000000000000000000bb',
      nonce: 7n,
      type: 2,
      value: 10n,
      gasLimit: 21_000n,
      gasPrice: 30n,
      maxFeePerGas: 30n,
      maxPriorityFeePerGas: 2n,
      input: '0x',
    },
  ]);
  api = await startApi(db.pool);
});

after(async () => {
  await api?.close();
  await db?.drop();
});

async function column(sql: string): Promise<string[]> {
  return (await db.pool.query<{ v: string }>(sql)).rows.map((r) => r.v);
}

/** The items of several lists about different addresses, each once, grouped by transaction hash. */
async function byTransaction(paths: string[]): Promise<Map<string, Item[]>> {
  const seen = new Map<string, Item>();
  for (const path of paths) {
    for (const item of (await collectList(api, path)).items) seen.set(JSON.stringify(item), item);
  }
  const grouped = new Map<string, Item[]>();
  for (const item of seen.values()) grouped.set(item.transaction_hash, [...(grouped.get(item.transaction_hash) ?? []), item]);
  return grouped;
}

const addressesOf = (table: string, columns: string[]) =>
  column(`SELECT DISTINCT '0x' || encode(a, 'hex') AS v FROM (${columns.map((c) => `SELECT ${c} AS a FROM ${table}`).join(' UNION ')}) s
          WHERE a IS NOT NULL`);

test("a mined transaction's page equals its E2 item, and its token transfers are exactly E8's for it, on every page", async () => {
  const e2 = (await collectList(api, '/api/v2/transactions')).items;
  assert.equal(
    e2.length,
    94 + recordedParityBlocks.reduce((n, b) => n + b.traces.filter((t: any) => t.traceAddress?.length === 0).length, 0),
  );
  const e8 = await byTransaction(
    (await addressesOf('token_transfers', ['from_address', 'to_address'])).map((a) => `/api/v2/addresses/${a}/token-transfers`),
  );
  assert.ok(e8.size > 10, `transactions with token transfers: ${e8.size}`);
  let overflowing = 0;
  for (const listed of e2) {
    const { status, body } = await api.get(`/api/v2/transactions/${listed.hash}`);
    assert.equal(status, 200);
    for (const [key, value] of Object.entries(listed)) {
      if (key !== 'token_transfers' && key !== 'token_transfers_overflow') assert.deepEqual(body[key], value, `${listed.hash} ${key}`);
    }
    // E8 lists newest first: by log index descending, an ERC-1155 batch in its order.
    const expected = [...(e8.get(listed.hash) ?? [])].sort((a, b) => b.log_index - a.log_index);
    const served = await collectList(api, `/api/v2/transactions/${listed.hash}/token-transfers`);
    assert.deepEqual(served.items, expected, `token transfers of ${listed.hash}`);
    assert.deepEqual(body.token_transfers, [...expected].reverse().slice(0, 10), `embedded transfers of ${listed.hash}`);
    assert.equal(body.token_transfers_overflow, expected.length > 10);
    if (expected.length > 10) overflowing += 1;
  }
  assert.ok(overflowing > 0, 'some transaction of block 18,000,000 has more than 10 token transfers');
});

test("a transaction's token transfers page by E8's keyset and filter by type", async () => {
  const { rows } = await db.pool.query<{ hash: string; n: number }>(
    `SELECT '0x' || encode(transaction_hash, 'hex') AS hash, count(*)::int AS n FROM token_transfers
     WHERE token_type = 'ERC-20' AND batch_index = 0 GROUP BY transaction_hash ORDER BY n DESC LIMIT 1`,
  );
  const { hash } = rows[0]!;
  const path = `/api/v2/transactions/${hash}/token-transfers`;
  const all = (await collectList(api, path)).items;
  assert.ok(all.length > 3);
  // The keyset of the third item, as next_page_params would carry it (ERC-20: batch index 0).
  const third = all[2]!;
  const rest = await collectList(api, path, { block_number: String(third.block_number), index: String(third.log_index), batch_index: '0' });
  assert.deepEqual(rest.items, all.slice(3));
  // A keyset below the transaction's block leaves nothing; above it, everything.
  const below = await api.get(`${path}?block_number=${third.block_number - 1}&index=0&batch_index=0`);
  assert.deepEqual(below.body, { items: [], next_page_params: null });
  const above = await collectList(api, path, { block_number: String(third.block_number + 1), index: '0', batch_index: '0' });
  assert.deepEqual(above.items, all);
  const erc20 = await collectList(api, path, { type: 'ERC-20' });
  assert.deepEqual(
    erc20.items,
    all.filter((i) => i.token.type === 'ERC-20'),
  );
  const partial = await api.get(`${path}?block_number=1`);
  assert.equal(partial.status, 422);
  assert.deepEqual(partial.body.errors.map((e: any) => e.source.pointer).sort(), ['/batch_index', '/index']);
  assert.equal((await api.get(`${path}?type=ERC-9`)).status, 422);
});

test("a transaction's internal transactions are exactly E7's for it, and its block counts them as Blockscout does", async () => {
  const e7 = await byTransaction(
    (await addressesOf('internal_transactions', ['from_address', 'to_address', 'created_contract'])).map(
      (a) => `/api/v2/addresses/${a}/internal-transactions`,
    ),
  );
  let compared = 0;
  for (const { traces: frames } of recordedParityBlocks) {
    const transactions = [...new Set(frames.filter((t: any) => t.type !== 'reward').map((t: any) => t.transactionHash as string))];
    for (const hash of transactions) {
      const expected = [...(e7.get(hash) ?? [])].sort((a, b) => b.index - a.index);
      const served = await collectList(api, `/api/v2/transactions/${hash}/internal-transactions`);
      assert.deepEqual(served.items, expected, `internal transactions of ${hash}`);
      compared += expected.length;
    }
    // From the recording: every frame but the rewards and each transaction's top-level call.
    const counted = frames.filter((t: any) => t.type !== 'reward' && !(t.type === 'call' && t.traceAddress.length === 0)).length;
    const { body } = await api.get(`/api/v2/blocks/${frames[0].blockHash}`);
    assert.equal(body.internal_transactions_count, counted);
  }
  assert.ok(compared > 0, 'the recordings hold internal transactions');
  // A keyset inside a transaction's list continues after it.
  const [hash, items] = [...e7.entries()].sort((a, b) => b[1].length - a[1].length)[0]!;
  if (items.length > 1) {
    const sorted = [...items].sort((a, b) => b.index - a.index);
    const first = sorted[0]!;
    const rest = await collectList(api, `/api/v2/transactions/${hash}/internal-transactions`, {
      block_number: String(first.block_number),
      transaction_index: String(first.transaction_index),
      index: String(first.index),
    });
    assert.deepEqual(rest.items, sorted.slice(1));
  }
});

test("block 18,000,000's page has the recording's fields, by number and by hash, and its transactions are E2's", async () => {
  const { extra_data: _extraData, state_root: _stateRoot, ...listed } = expectedMainnetBlock;
  const expected = { ...listed, uncles_hashes: [], internal_transactions_count: null };
  const e2 = (await collectList(api, '/api/v2/transactions')).items.filter((i) => i.block_number === 18_000_000);
  for (const id of ['18000000', recorded.block.hash]) {
    const { status, body } = await api.get(`/api/v2/blocks/${id}`);
    assert.equal(status, 200);
    assert.deepEqual(body, expected);
    const transactions = await collectList(api, `/api/v2/blocks/${id}/transactions`);
    assert.deepEqual(transactions.pageSizes, [50, 44]);
    assert.deepEqual(transactions.items, e2);
  }
});

test('the blocks list pages the consensus chain newest first; uncle is empty; bad parameters are 422s', async () => {
  const heights = [18_000_000, ...recordedParityBlocks.map((b) => Number(b.number))].sort((a, b) => b - a);
  const blocks = await collectList(api, '/api/v2/blocks');
  assert.deepEqual(
    blocks.items.map((b) => b.height),
    heights,
  );
  const detail = (await api.get('/api/v2/blocks/18000000')).body;
  const listed = blocks.items.find((b) => b.height === 18_000_000)!;
  for (const [key, value] of Object.entries(detail)) {
    if (key !== 'uncles_hashes' && key !== 'internal_transactions_count') assert.deepEqual(listed[key], value, key);
  }
  const below = await collectList(api, '/api/v2/blocks', { type: 'block', block_number: String(heights[0]) });
  assert.deepEqual(
    below.items.map((b) => b.height),
    heights.slice(1),
  );
  assert.deepEqual((await api.get('/api/v2/blocks?type=uncle')).body, { items: [], next_page_params: null });
  assert.deepEqual((await api.get('/api/v2/blocks?type=reorg')).body, { items: [], next_page_params: null });
  for (const [path, pointer] of [
    ['/api/v2/blocks?type=ommer', '/type'],
    ['/api/v2/blocks?block_number=abc', '/block_number'],
    ['/api/v2/blocks/0x12', '/block_number_or_hash'],
    ['/api/v2/blocks/-1/transactions', '/block_number_or_hash'],
    ['/api/v2/blocks/18000000/transactions?index=1', '/block_number'],
    ['/api/v2/transactions/0x1234', '/transaction_hash'],
    ['/api/v2/transactions/0x1234/token-transfers', '/transaction_hash'],
    ['/api/v2/transactions/0x1234/internal-transactions', '/transaction_hash'],
  ] as const) {
    const { status, body } = await api.get(path);
    assert.equal(status, 422, path);
    assert.ok(
      body.errors.some((e: any) => e.source.pointer === pointer),
      `${path}: ${JSON.stringify(body)}`,
    );
  }
});

test('unknown transactions and blocks are 404s', async () => {
  const unknown = `0x${'ab'.repeat(32)}`;
  for (const path of [
    `/api/v2/transactions/${unknown}`,
    `/api/v2/transactions/${unknown}/token-transfers`,
    `/api/v2/transactions/${unknown}/internal-transactions`,
    `/api/v2/blocks/${unknown}`,
    `/api/v2/blocks/${unknown}/transactions`,
    '/api/v2/blocks/99999999',
    '/api/v2/blocks/99999999999999999999999/transactions',
  ]) {
    const { status, body } = await api.get(path);
    assert.equal(status, 404, path);
    assert.deepEqual(body, { message: 'Not found' });
  }
});

test("a pool transaction's page equals its pending E2 item, with no transfers and no internal transactions", async () => {
  const [listed] = (await collectList(api, '/api/v2/transactions', { filter: 'pending' })).items;
  assert.equal(listed?.hash, pendingHash);
  const { status, body } = await api.get(`/api/v2/transactions/${pendingHash}`);
  assert.equal(status, 200);
  assert.deepEqual(body, { ...listed, token_transfers: [], token_transfers_overflow: false });
  assert.equal(body.result, 'pending');
  for (const list of ['token-transfers', 'internal-transactions']) {
    assert.deepEqual((await api.get(`/api/v2/transactions/${pendingHash}/${list}`)).body, { items: [], next_page_params: null });
  }
});

test('a block that lost consensus is listed by type=reorg and found by its hash, not by its number', async () => {
  await retractBlocksFrom(db.pool, MAINNET_BLOCK_NUMBER);
  const hash = recorded.block.hash;
  const reorg = await collectList(api, '/api/v2/blocks', { type: 'reorg' });
  assert.deepEqual(
    reorg.items.map((b) => [b.hash, b.height, b.type]),
    [[hash, 18_000_000, 'reorg']],
  );
  const blocks = await collectList(api, '/api/v2/blocks');
  assert.ok(!blocks.items.some((b) => b.hash === hash));
  const { status, body } = await api.get(`/api/v2/blocks/${hash}`);
  assert.equal(status, 200);
  assert.equal(body.type, 'reorg');
  assert.equal(body.height, 18_000_000);
  // By number it is unknown: after the retraction its height is above the indexed head.
  const byNumber = await api.get('/api/v2/blocks/18000000');
  assert.equal(byNumber.status, 404);
  assert.deepEqual(byNumber.body, { message: 'Not found' });
  // Its transactions left with it.
  assert.deepEqual((await api.get(`/api/v2/blocks/${hash}/transactions`)).body, { items: [], next_page_params: null });
  assert.equal((await api.get(`/api/v2/transactions/${recorded.block.transactions[0]!.hash}`)).status, 404);
});
