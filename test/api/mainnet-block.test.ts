import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { getAddress } from 'viem';
import { decodeBlock } from '../../src/chain/decode-block.js';
import type { RpcBlock, RpcReceipt } from '../../src/chain/rpc-types.js';
import { writeBlockBundles } from '../../src/store/write-blocks.js';
import { type TestDatabase, createTestDatabase } from '../support/database.js';
import { MAINNET_BLOCK_NUMBER, loadMainnetBlock18000000 } from '../support/mainnet-fixtures.js';
import { type RunningApi, collectList, startApi } from './http.js';

// Expected values are computed here from the node's JSON (hex quantities), independently of the code
// under test.
const MINER = '0xdafea492d9c6733ae3d56b7ed1adb60692c98bc5';
const knownMethods: Record<string, string> = {
  '0x095ea7b3': 'approve',
  '0xa9059cbb': 'transfer',
  '0x5ae401dc': 'multicall',
  '0x40c10f19': 'mint',
  '0xf14fcbc8': 'commit',
};

// The recording's JSON, loosely typed: only the members these tests read.
type Json = Record<string, any>;

let db: TestDatabase;
let api: RunningApi;
let block: Json;
let receipts: Json[];

before(async () => {
  const recorded = loadMainnetBlock18000000();
  block = recorded.block as unknown as Json;
  receipts = recorded.receipts as unknown as Json[];
  db = await createTestDatabase();
  await writeBlockBundles(db.pool, [
    decodeBlock({ number: MAINNET_BLOCK_NUMBER, block: recorded.block as RpcBlock, receipts: recorded.receipts as RpcReceipt[] }),
  ]);
  api = await startApi(db.pool);
});

after(async () => {
  await api?.close();
  await db?.drop();
});

const big = (hex: string) => BigInt(hex);
const isoOf = (secondsHex: string) => new Date(Number(big(secondsHex)) * 1000).toISOString().replace('Z', '000Z');
const min = (a: bigint, b: bigint) => (a < b ? a : b);

/** Addresses the index knows as contracts: those that emitted a log or were created (successfully). */
function knownContracts(): Set<string> {
  const contracts = new Set<string>();
  for (const receipt of receipts) {
    for (const log of receipt.logs) contracts.add(log.address);
    if (receipt.contractAddress && receipt.status === '0x1') contracts.add(receipt.contractAddress);
  }
  return contracts;
}

test('E2 lists the 94 transactions of block 18,000,000 with their fees as Blockscout computes them', async () => {
  const list = await collectList(api, '/api/v2/transactions');
  assert.deepEqual(list.pageSizes, [50, 44]);
  const transactions: Json[] = block.transactions;
  assert.equal(list.items.length, transactions.length);
  const baseFee = big(block.baseFeePerGas);
  const contracts = knownContracts();

  const expectedOrder = [...transactions].reverse();
  for (const [i, item] of list.items.entries()) {
    const tx = expectedOrder[i]!;
    const receipt = receipts[Number(big(tx.transactionIndex))]!;
    assert.equal(receipt.transactionHash, tx.hash);
    const gasUsed = big(receipt.gasUsed);
    const price = big(receipt.effectiveGasPrice);
    const dynamic = tx.type === '0x2';
    const where = `transaction ${tx.hash}`;

    assert.equal(item.hash, tx.hash, where);
    assert.equal(item.block_number, 18_000_000, where);
    assert.equal(item.position, Number(big(tx.transactionIndex)), where);
    assert.equal(item.timestamp, isoOf(block.timestamp), where);
    assert.equal(item.confirmations, 1, where);
    assert.equal(item.nonce, Number(big(tx.nonce)), where);
    assert.equal(item.type, Number(big(tx.type)), where);
    assert.equal(item.value, big(tx.value).toString(), where);
    assert.equal(item.gas_limit, big(tx.gas).toString(), where);
    assert.equal(item.gas_used, gasUsed.toString(), where);
    assert.equal(item.gas_price, price.toString(), where);
    assert.deepEqual(item.fee, { type: 'actual', value: (price * gasUsed).toString() }, where);
    assert.equal(item.base_fee_per_gas, baseFee.toString(), where);
    assert.equal(item.max_fee_per_gas, dynamic ? big(tx.maxFeePerGas).toString() : null, where);
    assert.equal(item.max_priority_fee_per_gas, dynamic ? big(tx.maxPriorityFeePerGas).toString() : null, where);
    assert.equal(item.transaction_burnt_fee, dynamic ? (baseFee * gasUsed).toString() : null, where);
    assert.equal(
      item.priority_fee,
      dynamic ? (min(big(tx.maxPriorityFeePerGas), big(tx.maxFeePerGas) - baseFee) * gasUsed).toString() : null,
      where,
    );
    assert.equal(item.status, receipt.status === '0x1' ? 'ok' : 'error', where);
    assert.equal(item.result, receipt.status === '0x1' ? 'success' : 'awaiting_internal_transactions', where);
    assert.equal(item.revert_reason, null, where);
    assert.equal(item.raw_input, tx.input, where);
    assert.equal(item.from.hash, getAddress(tx.from), where);
    assert.equal(item.to?.hash ?? null, tx.to === null ? null : getAddress(tx.to), where);
    assert.equal(item.created_contract?.hash ?? null, receipt.contractAddress ? getAddress(receipt.contractAddress) : null, where);
    const toContract = tx.to !== null && contracts.has(tx.to);
    assert.equal(item.to?.is_contract ?? null, tx.to === null ? null : toContract, where);
    const selector = tx.input.length >= 10 ? tx.input.slice(0, 10) : null;
    assert.equal(item.method, toContract && selector !== null ? (knownMethods[selector] ?? selector) : null, where);
    const types = [
      ...(big(tx.value) > 0n ? ['coin_transfer'] : []),
      ...(toContract ? ['contract_call'] : []),
      ...(tx.to === null ? ['contract_creation'] : []),
    ];
    assert.deepEqual(item.transaction_types, types, where);
  }
  // The recording holds both kinds of fee market, failures, a creation and known methods.
  assert.ok(list.items.some((i: Json) => i.type === 0) && list.items.some((i: Json) => i.type === 2));
  assert.equal(list.items.filter((i: Json) => i.status === 'error').length, 2);
  assert.equal(list.items.filter((i: Json) => i.to === null).length, 1);
  assert.ok(list.items.some((i: Json) => i.method === 'transfer'));
});

test('E2 method=transfer and type filters select from block 18,000,000 as the recording says', async () => {
  const contracts = knownContracts();
  const transactions: Json[] = [...block.transactions].reverse();
  const transfers = await collectList(api, '/api/v2/transactions', { method: 'transfer' });
  assert.deepEqual(
    transfers.items.map((i: Json) => i.hash),
    transactions.filter((t) => t.input.startsWith('0xa9059cbb')).map((t) => t.hash),
  );
  const calls = await collectList(api, '/api/v2/transactions', { type: 'contract_call' });
  assert.deepEqual(
    calls.items.map((i: Json) => i.hash),
    transactions.filter((t) => t.to !== null && contracts.has(t.to)).map((t) => t.hash),
  );
});

test('E5 lists block 18,000,000 for its miner with every field from the recording', async () => {
  const { status, body } = await api.get(`/api/v2/addresses/${MINER}/blocks-validated`);
  assert.equal(status, 200);
  assert.equal(body.next_page_params, null);
  assert.equal(body.items.length, 1);
  const item = body.items[0];
  const baseFee = big(block.baseFeePerGas);
  let burnt = 0n;
  let fees = 0n;
  let priority = 0n;
  for (const [i, tx] of (block.transactions as Json[]).entries()) {
    const gasUsed = big(receipts[i]!.gasUsed);
    burnt += baseFee * gasUsed;
    fees += big(receipts[i]!.effectiveGasPrice) * gasUsed;
    const maxFee = big(tx.maxFeePerGas ?? tx.gasPrice);
    const maxPriority = big(tx.maxPriorityFeePerGas ?? tx.gasPrice);
    priority += min(maxFee - baseFee, maxPriority) * gasUsed;
  }
  const gasUsed = big(block.gasUsed);
  const gasLimit = big(block.gasLimit);
  const exactPercent = (n: bigint, d: bigint) => Number(`${(n * 10n ** 42n) / d}e-40`);
  assert.deepEqual(item, {
    base_fee_per_gas: baseFee.toString(),
    blob_gas_used: null,
    burnt_fees: burnt.toString(),
    burnt_fees_percentage: exactPercent(burnt, fees),
    difficulty: '0',
    excess_blob_gas: null,
    extra_data: block.extraData,
    gas_limit: gasLimit.toString(),
    gas_target_percentage: exactPercent(2n * gasUsed - gasLimit, gasLimit),
    gas_used: gasUsed.toString(),
    gas_used_percentage: exactPercent(gasUsed, gasLimit),
    hash: block.hash,
    height: 18_000_000,
    internal_transactions_count: null,
    is_pending_update: false,
    miner: {
      ens_domain_name: null,
      hash: getAddress(MINER),
      implementation_name: null,
      implementations: [],
      is_contract: false,
      is_scam: false,
      is_verified: null,
      metadata: null,
      name: null,
      private_tags: [],
      proxy_type: null,
      public_tags: [],
      reputation: 'ok',
      watchlist_names: [],
    },
    nonce: block.nonce,
    parent_hash: block.parentHash,
    priority_fee: priority.toString(),
    rewards: [],
    size: Number(big(block.size)),
    state_root: block.stateRoot,
    timestamp: isoOf(block.timestamp),
    total_difficulty: null,
    transaction_fees: fees.toString(),
    transactions_count: 94,
    type: 'block',
    uncles_hashes: [],
    withdrawals_count: 16,
  });
  assert.equal(item.miner.hash, '0xDAFEA492D9c6733ae3d56b7Ed1ADB60692c98Bc5');
});

test('E9 lists the 16 withdrawals of block 18,000,000 in wei, by number and by hash', async () => {
  const withdrawals: Json[] = [...block.withdrawals].reverse();
  for (const id of ['18000000', block.hash]) {
    const { status, body } = await api.get(`/api/v2/blocks/${id}/withdrawals`);
    assert.equal(status, 200);
    assert.equal(body.next_page_params, null);
    assert.deepEqual(
      body.items,
      withdrawals.map((w) => ({
        amount: (big(w.amount) * 1_000_000_000n).toString(),
        index: Number(big(w.index)),
        receiver: {
          ens_domain_name: null,
          hash: getAddress(w.address),
          implementation_name: null,
          implementations: [],
          is_contract: false,
          is_scam: false,
          is_verified: null,
          metadata: null,
          name: null,
          private_tags: [],
          proxy_type: null,
          public_tags: [],
          reputation: 'ok',
          watchlist_names: [],
        },
        validator_index: Number(big(w.validatorIndex)),
      })),
    );
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
