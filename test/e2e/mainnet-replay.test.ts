import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { getAddress } from 'viem';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { loadMainnetBlock18000000, loadMainnetBlock18000000Recordings } from '../support/mainnet-fixtures.js';
import { startReplayNode, type ReplayNode } from '../support/replay-node.js';
import { startSextant, type RunningSextant } from '../support/sextant-process.js';

// `sextant start` against a node that serves block 18,000,000 and its receipts and refuses every
// other method, as a pruned node would. Every expected value is computed here from the recording.

const { block, receipts } = loadMainnetBlock18000000();
const big = (hex: string | null | undefined) => (hex == null ? null : BigInt(hex));
const iso = (seconds: bigint) => new Date(Number(seconds) * 1000).toISOString().replace('Z', '000Z');
const baseFee = BigInt(block.baseFeePerGas!);
const receiptOf = new Map(receipts.map((r) => [r.transactionHash, r]));

let node: ReplayNode;
let db: TestDatabase;
let sextant: RunningSextant;

before(async () => {
  node = await startReplayNode(loadMainnetBlock18000000Recordings());
  db = await createTestDatabase({ migrated: false });
  sextant = await startSextant({
    ETHEREUM_JSONRPC_HTTP_URL: node.url,
    DATABASE_URL: db.url,
    FIRST_BLOCK: '18000000',
    LAST_BLOCK: '18000000',
    INDEXER_DISABLE_INTERNAL_TRANSACTIONS_FETCHER: 'true',
  });
});
after(async () => {
  assert.equal(await sextant.stop(), 0, 'a clean exit on SIGTERM');
  await node.stop();
  await db.drop();
});

async function get(path: string): Promise<any> {
  const response = await fetch(`${sextant.baseUrl}${path}`);
  assert.equal(response.status, 200, `${path}: ${await response.clone().text()}`);
  return response.json();
}

async function allPages(path: string): Promise<any[]> {
  const items: any[] = [];
  let query = '';
  for (let page = 0; page < 10; page++) {
    const body = await get(`${path}${query}`);
    items.push(...body.items);
    if (body.next_page_params === null) return items;
    query = `?${new URLSearchParams(Object.entries(body.next_page_params).map(([k, v]) => [k, String(v)]))}`;
  }
  throw new Error('more pages than expected');
}

test('E9 serves the 16 withdrawals of the block in wei, by number and by hash', async () => {
  const expected = [...block.withdrawals!]
    .sort((a, b) => Number(BigInt(b.index) - BigInt(a.index)))
    .map((w) => ({
      index: Number(w.index),
      validator_index: Number(w.validatorIndex),
      amount: (BigInt(w.amount) * 1_000_000_000n).toString(),
      receiver: getAddress(w.address),
    }));
  for (const id of ['18000000', block.hash]) {
    const body = await get(`/api/v2/blocks/${id}/withdrawals`);
    assert.equal(body.next_page_params, null);
    assert.deepEqual(
      body.items.map((w: any) => ({ index: w.index, validator_index: w.validator_index, amount: w.amount, receiver: w.receiver.hash })),
      expected,
    );
    for (const item of body.items) {
      assert.ok(!('block_number' in item) && !('timestamp' in item), 'E9 items omit block_number and timestamp');
    }
  }
});

test('E5 serves the block under its miner with the recorded values and the fee sums', async () => {
  const body = await get(`/api/v2/addresses/${block.miner}/blocks-validated`);
  assert.equal(body.next_page_params, null);
  assert.equal(body.items.length, 1);
  const served = body.items[0];
  const gasUsed = BigInt(block.gasUsed);
  const gasLimit = BigInt(block.gasLimit);
  const fees = receipts.reduce((sum, r) => sum + BigInt(r.gasUsed) * BigInt(r.effectiveGasPrice!), 0n);
  const burnt = receipts.reduce((sum, r) => sum + BigInt(r.gasUsed) * baseFee, 0n);
  const priority = block.transactions.reduce((sum, t) => {
    const r = receiptOf.get(t.hash)!;
    const maxFee = big(t.maxFeePerGas) ?? BigInt(t.gasPrice!);
    const tip = big(t.maxPriorityFeePerGas) ?? BigInt(t.gasPrice!);
    const perGas = maxFee - baseFee < tip ? maxFee - baseFee : tip;
    return sum + perGas * BigInt(r.gasUsed);
  }, 0n);
  assert.deepEqual(
    {
      height: served.height,
      hash: served.hash,
      parent_hash: served.parent_hash,
      timestamp: served.timestamp,
      miner: served.miner.hash,
      gas_used: served.gas_used,
      gas_limit: served.gas_limit,
      base_fee_per_gas: served.base_fee_per_gas,
      size: served.size,
      nonce: served.nonce,
      difficulty: served.difficulty,
      transactions_count: served.transactions_count,
      withdrawals_count: served.withdrawals_count,
      transaction_fees: served.transaction_fees,
      burnt_fees: served.burnt_fees,
      priority_fee: served.priority_fee,
      type: served.type,
    },
    {
      height: 18_000_000,
      hash: block.hash,
      parent_hash: block.parentHash,
      timestamp: iso(BigInt(block.timestamp)),
      miner: getAddress(block.miner),
      gas_used: gasUsed.toString(),
      gas_limit: gasLimit.toString(),
      base_fee_per_gas: baseFee.toString(),
      size: Number(block.size),
      nonce: block.nonce,
      difficulty: '0',
      transactions_count: 94,
      withdrawals_count: 16,
      transaction_fees: fees.toString(),
      burnt_fees: burnt.toString(),
      priority_fee: priority.toString(),
      type: 'block',
    },
  );
  assert.ok(Math.abs(served.gas_used_percentage - (Number(gasUsed) / Number(gasLimit)) * 100) < 1e-9);
  assert.ok(Math.abs(served.gas_target_percentage - (Number(gasUsed) / (Number(gasLimit) / 2) - 1) * 100) < 1e-9);
  assert.ok(Math.abs(served.burnt_fees_percentage - (Number(burnt) / Number(fees)) * 100) < 1e-9);
});

test('E2 serves all 94 transactions over two pages, newest first, with the recorded values', async () => {
  const items = await allPages('/api/v2/transactions');
  assert.equal(items.length, 94);
  assert.deepEqual(items.map((t) => t.position), block.transactions.map((_, i) => 93 - i));
  for (const served of items) {
    const t = block.transactions[served.position]!;
    const r = receiptOf.get(t.hash)!;
    const gasUsed = BigInt(r.gasUsed);
    const price = BigInt(r.effectiveGasPrice!);
    const dynamic = t.type === '0x2';
    assert.deepEqual(
      {
        hash: served.hash,
        block_number: served.block_number,
        nonce: served.nonce,
        type: served.type,
        status: served.status,
        from: served.from.hash,
        to: served.to?.hash ?? null,
        value: served.value,
        gas_limit: served.gas_limit,
        gas_used: served.gas_used,
        gas_price: served.gas_price,
        max_fee_per_gas: served.max_fee_per_gas,
        max_priority_fee_per_gas: served.max_priority_fee_per_gas,
        base_fee_per_gas: served.base_fee_per_gas,
        fee: served.fee,
        transaction_burnt_fee: served.transaction_burnt_fee,
        priority_fee: served.priority_fee,
        raw_input: served.raw_input,
        timestamp: served.timestamp,
        confirmations: served.confirmations,
      },
      {
        hash: t.hash,
        block_number: 18_000_000,
        nonce: Number(t.nonce),
        type: Number(t.type),
        status: r.status === '0x1' ? 'ok' : 'error',
        from: getAddress(t.from),
        to: t.to ? getAddress(t.to) : null,
        value: BigInt(t.value).toString(),
        gas_limit: BigInt(t.gas).toString(),
        gas_used: gasUsed.toString(),
        gas_price: price.toString(),
        max_fee_per_gas: big(t.maxFeePerGas)?.toString() ?? null,
        max_priority_fee_per_gas: big(t.maxPriorityFeePerGas)?.toString() ?? null,
        base_fee_per_gas: baseFee.toString(),
        fee: { type: 'actual', value: (gasUsed * price).toString() },
        transaction_burnt_fee: dynamic ? (baseFee * gasUsed).toString() : null,
        priority_fee: dynamic
          ? ((BigInt(t.maxFeePerGas!) - baseFee < BigInt(t.maxPriorityFeePerGas!) ? BigInt(t.maxFeePerGas!) - baseFee : BigInt(t.maxPriorityFeePerGas!)) * gasUsed).toString()
          : null,
        raw_input: t.input,
        timestamp: iso(BigInt(block.timestamp)),
        confirmations: 1,
      },
      `transaction ${served.position}`,
    );
  }
});

test('the node was asked only for what a pruned node serves, and nothing else was needed', () => {
  const methods = new Set(node.requests.map((r) => r.method));
  assert.ok(methods.has('eth_getBlockByNumber') && methods.has('eth_getBlockReceipts'));
});
