import { test } from 'node:test';
import assert from 'node:assert/strict';
import { detectCapabilities } from '../../src/chain/capabilities.js';
import { decodeBlock } from '../../src/chain/decode-block.js';
import { InvalidNodeResponseError, NodeUnavailableError } from '../../src/chain/errors.js';
import { fetchBlocks } from '../../src/chain/fetch-blocks.js';
import { createRpcClient } from '../../src/chain/rpc.js';
import { startAnvil } from '../../src/demo/anvil.js';
import { loadMainnetBlock18000000Recordings } from '../support/mainnet-fixtures.js';
import { startReplayNode } from '../support/replay-node.js';

test('a pruned node that serves only blocks and block receipts is usable', async (t) => {
  // It has no `latest` block to show, so the probe's answer is null: the method exists all the same.
  const node = await startReplayNode(loadMainnetBlock18000000Recordings());
  t.after(() => node.stop());
  const client = createRpcClient({ url: node.url });

  const capabilities = await detectCapabilities(client);
  assert.deepEqual(capabilities, {
    variant: 'geth',
    clientVersion: null,
    chainId: null,
    blockReceipts: true,
    traceMethod: 'debug_traceBlockByNumber',
  });

  const [raw] = await fetchBlocks(client, capabilities, [18_000_000n]);
  assert.ok(raw);
  assert.equal(decodeBlock(raw).transactions.length, 94);
  assert.deepEqual(node.requests.map((call) => call.method).sort(), [
    'eth_chainId',
    'eth_getBlockByNumber',
    'eth_getBlockReceipts',
    'eth_getBlockReceipts',
    'web3_clientVersion',
  ]);
});

test('the variant comes from web3_clientVersion, unless given', async (t) => {
  const node = await startReplayNode([
    { method: 'web3_clientVersion', params: [], result: 'erigon/2.60.10/linux-amd64/go1.22.5' },
    { method: 'eth_chainId', params: [], result: '0x1' },
  ]);
  t.after(() => node.stop());
  const client = createRpcClient({ url: node.url });

  assert.deepEqual(await detectCapabilities(client), {
    variant: 'erigon',
    clientVersion: 'erigon/2.60.10/linux-amd64/go1.22.5',
    chainId: 1n,
    blockReceipts: false,
    traceMethod: 'trace_block',
  });
  const given = await detectCapabilities(client, { variant: 'geth' });
  assert.equal(given.variant, 'geth');
  assert.equal(given.traceMethod, 'debug_traceBlockByNumber');
});

test('an unknown client gets geth semantics', async (t) => {
  const node = await startReplayNode([
    { method: 'web3_clientVersion', params: [], result: 'SomeClient/v0.1.0' },
    { method: 'eth_getBlockReceipts', params: ['latest'], result: [] },
  ]);
  t.after(() => node.stop());
  const capabilities = await detectCapabilities(createRpcClient({ url: node.url }));
  assert.equal(capabilities.variant, 'geth');
  assert.equal(capabilities.clientVersion, 'SomeClient/v0.1.0');
  assert.equal(capabilities.blockReceipts, true);
});

test('a chain id that is not a quantity is an InvalidNodeResponseError', async (t) => {
  const node = await startReplayNode([{ method: 'eth_chainId', params: [], result: 'mainnet' }]);
  t.after(() => node.stop());
  await assert.rejects(detectCapabilities(createRpcClient({ url: node.url })), InvalidNodeResponseError);
});

test('an unreachable node is a NodeUnavailableError naming the URL and ETHEREUM_JSONRPC_HTTP_URL', async () => {
  const node = await startReplayNode([]);
  await node.stop();
  const client = createRpcClient({ url: node.url, timeoutMs: 500, retryCount: 1, retryDelayMs: 5 });
  await assert.rejects(detectCapabilities(client), (error: unknown) => {
    assert.ok(error instanceof NodeUnavailableError, `not a NodeUnavailableError: ${String(error)}`);
    assert.ok(error.message.includes(node.url), error.message);
    assert.match(error.message, /check ETHEREUM_JSONRPC_HTTP_URL/);
    return true;
  });
});

test('anvil: variant, chain id, block receipts and Parity-style tracing', async (t) => {
  const anvil = await startAnvil();
  t.after(() => anvil.stop());
  const capabilities = await detectCapabilities(createRpcClient({ url: anvil.rpcUrl }));
  assert.equal(capabilities.variant, 'anvil');
  assert.match(capabilities.clientVersion ?? '', /^anvil\/v/);
  assert.equal(capabilities.chainId, 31337n);
  assert.equal(capabilities.blockReceipts, true);
  assert.equal(capabilities.traceMethod, 'trace_block');
});
