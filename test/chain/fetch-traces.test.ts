import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { InvalidNodeResponseError } from '../../src/chain/errors.js';
import { fetchBlockTraces, type UntracedBlock } from '../../src/chain/fetch-traces.js';
import { createRpcClient } from '../../src/chain/rpc.js';
import type { Hex } from '../../src/model.js';
import { type ReplayNode, startReplayNode } from '../support/replay-node.js';
import { recordedCallTracerBlock, recordedParityBlocks } from '../support/trace-fixtures.js';

const parity = recordedParityBlocks[1]!;
const parityBlock: UntracedBlock = {
  hash: parity.traces[0].blockHash,
  number: parity.number,
  transactionHashes: [...new Set<Hex>(parity.traces.map((t) => t.transactionHash))],
};
const callTracer = recordedCallTracerBlock();
const callTracerBlock: UntracedBlock = {
  hash: `0x${'24'.repeat(32)}`,
  number: callTracer.number,
  transactionHashes: callTracer.results.map((r) => r.txHash),
};
const hex = (n: bigint) => `0x${n.toString(16)}`;
const tracer = { tracer: 'callTracer' };

let blockNode: ReplayNode;
let transactionNode: ReplayNode;

before(async () => {
  blockNode = await startReplayNode([
    { method: 'trace_block', params: [hex(parity.number)], result: parity.traces },
    { method: 'debug_traceBlockByNumber', params: [hex(callTracer.number), tracer], result: callTracer.results },
  ]);
  // A node that refuses block tracing and answers per transaction.
  transactionNode = await startReplayNode([
    ...parityBlock.transactionHashes.map((hash) => ({
      method: 'trace_transaction', params: [hash], result: parity.traces.filter((t) => t.transactionHash === hash),
    })),
    ...callTracer.results.map(({ txHash, result }) => ({ method: 'debug_traceTransaction', params: [txHash, tracer], result })),
  ]);
});

after(async () => {
  await blockNode?.stop();
  await transactionNode?.stop();
});

test('a node that refuses block tracing is traced one transaction at a time, to the same result', async () => {
  const byBlock = createRpcClient({ url: blockNode.url });
  const byTransaction = createRpcClient({ url: transactionNode.url });
  for (const [method, block] of [['trace_block', parityBlock], ['debug_traceBlockByNumber', callTracerBlock]] as const) {
    const whole = await fetchBlockTraces(byBlock, method, block);
    const single = await fetchBlockTraces(byTransaction, method, block);
    assert.ok(whole.internalTransactions.length > block.transactionHashes.length, method);
    assert.deepEqual(single.internalTransactions, whole.internalTransactions, method);
  }
  const methods = new Set(transactionNode.requests.map((r) => r.method));
  assert.deepEqual([...methods].sort(), ['debug_traceBlockByNumber', 'debug_traceTransaction', 'trace_block', 'trace_transaction']);
});

test('traces of another block than the one stored are refused', async () => {
  const client = createRpcClient({ url: blockNode.url });
  const replaced = { ...parityBlock, hash: `0x${'ee'.repeat(32)}` as Hex };
  await assert.rejects(fetchBlockTraces(client, 'trace_block', replaced), InvalidNodeResponseError);
  const reordered = { ...callTracerBlock, transactionHashes: [...callTracerBlock.transactionHashes].reverse() };
  await assert.rejects(fetchBlockTraces(client, 'debug_traceBlockByNumber', reordered), InvalidNodeResponseError);
});
