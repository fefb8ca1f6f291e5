import { test } from 'node:test';
import assert from 'node:assert/strict';
import { detectCapabilities } from '../../src/chain/capabilities.js';
import { decodeBlock } from '../../src/chain/decode-block.js';
import { BlockNotFoundError, InvalidNodeResponseError } from '../../src/chain/errors.js';
import { fetchBlocks, fetchHeadNumber } from '../../src/chain/fetch-blocks.js';
import { createRpcClient, type RpcClient } from '../../src/chain/rpc.js';
import { startAnvil } from '../../src/demo/anvil.js';
import { loadConformanceBlock1, loadConformanceHeadBlock } from '../support/execution-apis-fixtures.js';
import { loadMainnetBlock18000000, loadMainnetBlock18000000Recordings, MAINNET_BLOCK_NUMBER } from '../support/mainnet-fixtures.js';
import { startReplayNode, type Recording } from '../support/replay-node.js';

/** A node without eth_getBlockReceipts: the block by number, and each receipt by transaction hash. */
function perTransactionRecordings(): Recording[] {
  const { block, receipts } = loadMainnetBlock18000000();
  return [
    { method: 'eth_getBlockByNumber', params: ['0x112a880', true], result: block },
    ...receipts.map((receipt) => ({ method: 'eth_getTransactionReceipt', params: [receipt.transactionHash], result: receipt })),
  ];
}

test('with eth_getBlockReceipts: block and receipts in one batch', async (t) => {
  const node = await startReplayNode(loadMainnetBlock18000000Recordings());
  t.after(() => node.stop());
  const client = createRpcClient({ url: node.url });

  const raws = await fetchBlocks(client, { blockReceipts: true }, [MAINNET_BLOCK_NUMBER]);
  assert.deepEqual(raws, [{ number: MAINNET_BLOCK_NUMBER, ...loadMainnetBlock18000000() }]);
  assert.deepEqual(node.httpRequests, [{ calls: 2, batch: true }]);
  assert.deepEqual(node.requests, [
    { method: 'eth_getBlockByNumber', params: ['0x112a880', true] },
    { method: 'eth_getBlockReceipts', params: ['0x112a880'] },
  ]);
});

test('without eth_getBlockReceipts: receipts fetched per transaction, in one more batch', async (t) => {
  const node = await startReplayNode(perTransactionRecordings());
  t.after(() => node.stop());
  const client = createRpcClient({ url: node.url, batchSize: 100 });
  const capabilities = await detectCapabilities(client);
  assert.equal(capabilities.blockReceipts, false);
  const probes = node.httpRequests.length;

  const raws = await fetchBlocks(client, capabilities, [MAINNET_BLOCK_NUMBER]);
  assert.deepEqual(raws, [{ number: MAINNET_BLOCK_NUMBER, ...loadMainnetBlock18000000() }]);
  assert.deepEqual(node.httpRequests.slice(probes), [
    { calls: 1, batch: true },
    { calls: 94, batch: true },
  ]);
  const [raw] = raws;
  assert.ok(raw);
  assert.deepEqual(
    node.requests.slice(-94),
    raw.block.transactions.map((transaction) => ({ method: 'eth_getTransactionReceipt', params: [transaction.hash] })),
  );
  assert.equal(decodeBlock(raw).logs.length, 291);
});

test('a block the node does not have is a BlockNotFoundError', async (t) => {
  const node = await startReplayNode(loadMainnetBlock18000000Recordings());
  t.after(() => node.stop());
  const client = createRpcClient({ url: node.url });
  for (const blockReceipts of [true, false]) {
    await assert.rejects(fetchBlocks(client, { blockReceipts }, [MAINNET_BLOCK_NUMBER, 18_000_001n]), (error: unknown) => {
      assert.ok(error instanceof BlockNotFoundError, `not a BlockNotFoundError: ${String(error)}`);
      assert.equal(error.blockNumber, 18_000_001n);
      assert.equal(error.method, 'eth_getBlockByNumber');
      return true;
    });
  }
});

test('a receipt the node does not have is a BlockNotFoundError', async (t) => {
  const node = await startReplayNode(perTransactionRecordings().slice(0, -1));
  t.after(() => node.stop());
  await assert.rejects(
    fetchBlocks(createRpcClient({ url: node.url }), { blockReceipts: false }, [MAINNET_BLOCK_NUMBER]),
    (error: unknown) => error instanceof BlockNotFoundError && error.method === 'eth_getTransactionReceipt',
  );
});

test('fetchHeadNumber reads eth_blockNumber and refuses a malformed answer', async (t) => {
  const node = await startReplayNode([{ method: 'eth_blockNumber', params: [], result: '0x112A880' }]);
  t.after(() => node.stop());
  assert.equal(await fetchHeadNumber(createRpcClient({ url: node.url })), 18_000_000n);

  const broken = await startReplayNode([{ method: 'eth_blockNumber', params: [], result: 18000000 }]);
  t.after(() => broken.stop());
  await assert.rejects(fetchHeadNumber(createRpcClient({ url: broken.url })), InvalidNodeResponseError);
});

test('anvil: a block of mixed transactions decodes the same with and without block receipts', async (t) => {
  const anvil = await startAnvil();
  t.after(() => anvil.stop());
  const client = createRpcClient({ url: anvil.rpcUrl });
  const [from, to] = await client.request<string[]>('eth_accounts', []);

  await client.request('evm_setAutomine', [false]);
  await send(client, { from, to, value: '0x1' });
  // Init code that emits an empty log from the new contract, then stops.
  await send(client, { from, data: '0x60006000a000' });
  // Init code that reverts: the receipt names an address, but no contract is left there.
  await send(client, { from, data: '0x60006000fd', gas: '0x186a0' });
  await send(client, { from, to, value: '0x2', type: '0x0', gasPrice: '0x77359400' });
  await client.request('evm_mine', []);
  const head = await fetchHeadNumber(client);

  const [withBlockReceipts] = await fetchBlocks(client, { blockReceipts: true }, [head]);
  const [perTransaction] = await fetchBlocks(client, { blockReceipts: false }, [head]);
  assert.ok(withBlockReceipts && perTransaction);
  const bundle = decodeBlock(withBlockReceipts);
  assert.deepEqual(decodeBlock(perTransaction), bundle);

  const { block, transactions, logs, addresses } = bundle;
  assert.equal(block.transactionsCount, 4);
  assert.deepEqual(
    transactions.map(({ type, status }) => ({ type, status })),
    [
      { type: 2, status: 1 },
      { type: 2, status: 1 },
      { type: 2, status: 0 },
      { type: 0, status: 1 },
    ],
  );
  const [created, reverted] = [transactions[1]?.createdContract, transactions[2]?.createdContract];
  assert.ok(created && reverted, `created contracts: ${created}, ${reverted}`);
  assert.equal(logs.length, 1);
  assert.equal(logs[0]?.address, created);
  assert.deepEqual(addresses, [{ hash: created, isContract: true }]);

  const baseFee = block.baseFeePerGas;
  assert.ok(baseFee !== null && baseFee > 0n, `base fee ${baseFee}`);
  const gasUsed = transactions.reduce((sum, transaction) => sum + transaction.gasUsed, 0n);
  assert.equal(gasUsed, block.gasUsed);
  assert.equal(block.burntFees, gasUsed * baseFee);
  assert.equal(
    block.transactionFees,
    transactions.reduce((sum, transaction) => sum + transaction.gasUsed * (transaction.gasPrice ?? 0n), 0n),
  );
  assert.equal(block.transactionFees, block.burntFees + block.priorityFee);
});

async function send(client: RpcClient, transaction: Record<string, string | undefined>): Promise<void> {
  await client.request('eth_sendTransaction', [transaction]);
}

/**
 * Conformance blocks 1 and 0x36, 0x36 made the nephew of block 1's header, which stands in for the
 * answer to eth_getUncleByBlockHashAndIndex (a header of a block's shape, no transactions).
 */
function blocksWithAnUncle(): { recordings: Recording[]; nephewHash: string } {
  const first = loadConformanceBlock1();
  const head = loadConformanceHeadBlock();
  const { transactions: _transactions, ...uncle } = first.block;
  const nephew = { ...head.block, uncles: [uncle.hash] };
  return {
    nephewHash: nephew.hash,
    recordings: [
      { method: 'eth_getBlockByNumber', params: ['0x1', true], result: first.block },
      { method: 'eth_getBlockReceipts', params: ['0x1'], result: first.receipts },
      { method: 'eth_getBlockByNumber', params: ['0x36', true], result: nephew },
      { method: 'eth_getBlockReceipts', params: ['0x36'], result: head.receipts },
      { method: 'eth_getUncleByBlockHashAndIndex', params: [nephew.hash, '0x0'], result: { ...uncle, transactions: [], uncles: [] } },
    ],
  };
}

test("the uncles of the blocks that list some are fetched in one more batch, by their nephew's hash and index", async (t) => {
  const { recordings, nephewHash } = blocksWithAnUncle();
  const node = await startReplayNode(recordings);
  t.after(() => node.stop());
  const raws = await fetchBlocks(createRpcClient({ url: node.url }), { blockReceipts: true }, [1n, 0x36n]);
  assert.deepEqual(node.httpRequests, [
    { calls: 4, batch: true },
    { calls: 1, batch: true },
  ]);
  assert.deepEqual(node.requests.at(-1), { method: 'eth_getUncleByBlockHashAndIndex', params: [nephewHash, '0x0'] });
  assert.equal(raws[0]?.uncles, undefined);
  const [uncle] = decodeBlock(raws[1]!).uncleBlocks;
  assert.equal(uncle?.hash, loadConformanceBlock1().block.hash);
});

test('an uncle the node does not have is a BlockNotFoundError', async (t) => {
  // The node knows the method, but not this uncle: it answers null.
  const recordings = blocksWithAnUncle().recordings.map((r) =>
    r.method === 'eth_getUncleByBlockHashAndIndex' ? { ...r, params: [r.params[0], '0x1'] } : r,
  );
  const node = await startReplayNode(recordings);
  t.after(() => node.stop());
  await assert.rejects(
    fetchBlocks(createRpcClient({ url: node.url }), { blockReceipts: true }, [0x36n]),
    (error: unknown) =>
      error instanceof BlockNotFoundError && error.method === 'eth_getUncleByBlockHashAndIndex' && error.blockNumber === 0x36n,
  );
});
