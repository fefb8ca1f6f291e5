import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createRpcClient, type RpcClient } from '../../src/chain/rpc.js';
import { startAnvil, type AnvilNode } from '../../src/demo/anvil.js';
import { startIndexer } from '../../src/indexer/blocks/indexer.js';
import type { Hex } from '../../src/model.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { testIndexerOptions } from '../support/indexer-options.js';
import { waitForMined } from '../support/mined.js';
import { type RunningApi, startApi } from './http.js';

// /api/v2/stats on an anvil chain: the gas price oracle and the average block time, each expected
// value computed here from the node's own blocks, and the next base fee from its pending block.

let anvil: AnvilNode;
let rpc: RpcClient;
let accounts: Hex[];
let db: TestDatabase;

interface NodeBlock {
  number: Hex;
  timestamp: Hex;
  baseFeePerGas?: Hex;
  transactions: { hash: Hex; maxPriorityFeePerGas?: Hex; gasPrice: Hex }[];
}

const hex = (n: number | bigint) => `0x${n.toString(16)}`;
const nodeHead = async () => Number(BigInt(await rpc.request<Hex>('eth_blockNumber', [])));
const nodeBlock = (n: number) => rpc.request<NodeBlock>('eth_getBlockByNumber', [hex(n), true]);

before(async () => {
  anvil = await startAnvil();
  rpc = createRpcClient({ url: anvil.rpcUrl });
  accounts = await rpc.request<Hex[]>('eth_accounts', []);
  db = await createTestDatabase();
});

after(async () => {
  await db?.drop();
  await anvil?.stop();
});

async function indexed<T>(use: (api: RunningApi) => Promise<T>): Promise<T> {
  const indexer = startIndexer(await testIndexerOptions(db, rpc, BigInt(await nodeHead())));
  await indexer.done;
  const api = await startApi(db.pool);
  try {
    return await use(api);
  } finally {
    await api.close();
  }
}

/** Blockscout's mean interval of blocks (newest first, `skip` left out, `take` averaged), each interval over the heights it spans. */
async function meanInterval(skip: number, take: number): Promise<number | null> {
  const head = await nodeHead();
  const numbers = Array.from({ length: head + 1 }, (_, i) => head - i).slice(skip, skip + take);
  const blocks = await Promise.all(numbers.map(async (n) => ({ n, t: Number(BigInt((await nodeBlock(n)).timestamp)) * 1000 })));
  blocks.sort((a, b) => b.t - a.t || b.n - a.n);
  const intervals = blocks.slice(1).map((b, i) => (blocks[i]!.t - b.t) / (blocks[i]!.n - b.n));
  if (intervals.length === 0) return null;
  const mean = Math.round(intervals.reduce((sum, x) => sum + x, 0) / intervals.length);
  return mean > 0 ? mean : null;
}

test('the average block time is Blockscout’s over the 100 blocks below the newest 100, else over the newest on a young chain', async () => {
  await rpc.request('anvil_mine', [hex(40), hex(12)]);
  const young = await indexed(async (api) => (await api.get('/api/v2/stats')).body.average_block_time);
  assert.equal(await meanInterval(100, 100), null, 'fewer than two blocks below the newest 100');
  assert.equal(young, await meanInterval(0, 100));
  assert.ok(young !== null && young >= 12_000 && young < 13_000, `about 12 s: ${young}`);

  // 180 blocks 2 s apart on top: the blocks below the newest 100 are partly 12 s, partly 2 s apart.
  await rpc.request('anvil_mine', [hex(180), hex(2)]);
  const grown = await indexed(async (api) => (await api.get('/api/v2/stats')).body.average_block_time);
  const expected = await meanInterval(100, 100);
  assert.equal(grown, expected);
  assert.notEqual(grown, await meanInterval(0, 100), 'not the newest blocks’ 2 s');
});

test('gas prices: the percentiles of the priority fees offered, per block, averaged, on top of the next block’s base fee', async () => {
  // EIP-1559 transactions with priority fees from 1 to 9 gwei, three to a block, and a legacy one.
  await rpc.request('evm_setAutomine', [false]);
  for (let block = 0; block < 3; block++) {
    for (let i = 1; i <= 3; i++) {
      const tip = BigInt(block * 3 + i) * 1_000_000_000n;
      await rpc.request('eth_sendTransaction', [
        { from: accounts[i], to: accounts[0], value: '0x1', maxPriorityFeePerGas: hex(tip), maxFeePerGas: hex(tip + 10_000_000_000n) },
      ]);
    }
    await rpc.request('evm_mine', []);
  }
  await rpc.request('evm_setAutomine', [true]);
  const legacy = await rpc.request<Hex>('eth_sendTransaction', [
    { from: accounts[5], to: accounts[0], value: '0x1', gasPrice: hex(50n * 10n ** 9n) },
  ]);
  await waitForMined(rpc, legacy);

  const head = await nodeHead();
  const blocks = (await Promise.all(Array.from({ length: head + 1 }, (_, n) => nodeBlock(n)))).filter((b) => b.transactions.length > 0);
  const percentile = (sorted: bigint[], fraction: number) => sorted[Math.max(0, Math.ceil(fraction * sorted.length) - 1)]!;
  const tips = blocks
    .map((b) => b.transactions.flatMap((t) => (t.maxPriorityFeePerGas === undefined ? [] : [BigInt(t.maxPriorityFeePerGas)])))
    .filter((list) => list.length > 0)
    .map((list) => list.sort((x, y) => (x < y ? -1 : x > y ? 1 : 0)));
  assert.equal(tips.length, 3, 'three blocks offer priority fees; the legacy one is left out');
  const mean = (fraction: number) => tips.reduce((sum, list) => sum + Number(percentile(list, fraction)), 0) / tips.length;
  // What the node would build on its head: the base fee Blockscout's oracle adds.
  const pending = await rpc.request<NodeBlock>('eth_getBlockByNumber', ['pending', false]);
  const baseFee = Number(BigInt(pending.baseFeePerGas!));
  const gwei = (wei: number) => Math.ceil(wei / 1e7) / 100;

  await indexed(async (api) => {
    const stats = (await api.get('/api/v2/stats', { 'updated-gas-oracle': 'true' })).body;
    const speed = (fraction: number) => ({
      base_fee: gwei(baseFee),
      fiat_price: null,
      price: gwei(baseFee + mean(fraction)),
      priority_fee: gwei(mean(fraction)),
      time: stats.average_block_time,
    });
    assert.deepEqual(stats.gas_prices, { slow: speed(0.35), average: speed(0.6), fast: speed(0.9) });
    // The blocks' 90th percentiles are 3, 6 and 9 gwei.
    assert.equal(stats.gas_prices.fast.priority_fee, 6);
    const plain = (await api.get('/api/v2/stats')).body;
    assert.deepEqual(plain.gas_prices, { slow: speed(0.35).price, average: speed(0.6).price, fast: speed(0.9).price });
    assert.equal((await api.get('/api/v2/stats')).headers.get('vary')?.toLowerCase().includes('updated-gas-oracle'), true);
  });
});
