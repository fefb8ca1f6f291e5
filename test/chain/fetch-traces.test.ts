import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { InvalidNodeResponseError } from '../../src/chain/errors.js';
import { fetchBatchTraces, fetchBlockTraces } from '../../src/chain/fetch-traces.js';
import { createRpcClient, type RpcCall } from '../../src/chain/rpc.js';
import type { Hex, UntracedBlock } from '../../src/model.js';
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

/** The ethereum-etl blocks recorded both as trace_block and as debug_traceBlockByNumber with callTracer. */
const etlBlocks = ['block_with_create', 'block_with_error', 'block_with_subtraces', 'block_with_suicide'].map((name) => {
  const dir = new URL(`../fixtures/ethereum-etl/${name}/`, import.meta.url);
  const files = readdirSync(dir);
  const read = (prefix: string): any[] =>
    JSON.parse(
      readFileSync(
        new URL(
          files.find((f) => f.startsWith(prefix))!,
          dir,
        ),
        'utf8',
      ),
    ).result;
  const parity = read('web3_response.trace_block_');
  const block: UntracedBlock = {
    hash: parity[0].blockHash,
    number: BigInt(parity[0].blockNumber),
    transactionHashes: [...new Set<Hex>(parity.filter((t) => t.transactionHash).map((t) => t.transactionHash))],
  };
  return { block, parity, callTracer: read('web3_response.debug_traceBlockByNumber_') };
});
const etlUntraced = etlBlocks.map(({ block }) => block);

let blockNode: ReplayNode;
let transactionNode: ReplayNode;
/** Answers the etl blocks by block and by transaction. */
let etlNode: ReplayNode;

before(async () => {
  blockNode = await startReplayNode([
    { method: 'trace_block', params: [hex(parity.number)], result: parity.traces },
    { method: 'debug_traceBlockByNumber', params: [hex(callTracer.number), tracer], result: callTracer.results },
  ]);
  // A node that refuses block tracing and answers per transaction.
  transactionNode = await startReplayNode([
    ...parityBlock.transactionHashes.map((hash) => ({
      method: 'trace_transaction',
      params: [hash],
      result: parity.traces.filter((t) => t.transactionHash === hash),
    })),
    ...callTracer.results.map(({ txHash, result }) => ({ method: 'debug_traceTransaction', params: [txHash, tracer], result })),
  ]);
  etlNode = await startReplayNode(
    etlBlocks.flatMap(({ block, parity, callTracer: frames }) => [
      { method: 'trace_block', params: [hex(block.number)], result: parity },
      { method: 'debug_traceBlockByNumber', params: [hex(block.number), tracer], result: frames },
      ...block.transactionHashes.flatMap((hash, i) => [
        { method: 'trace_transaction', params: [hash], result: parity.filter((t) => t.transactionHash === hash) },
        { method: 'debug_traceTransaction', params: [hash, tracer], result: frames[i].result },
      ]),
    ]),
  );
});

after(async () => {
  await blockNode?.stop();
  await transactionNode?.stop();
  await etlNode?.stop();
});

/**
 * A node in front of `target` that refuses the calls `refuses` picks, as a node refuses a block too
 * heavy for its block tracer, and passes the others on; it counts the calls of each HTTP request.
 */
async function startRefusingNode(target: string, refuses: (call: RpcCall) => boolean) {
  const callsPerRequest: number[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const calls: (RpcCall & { id: number })[] = Array.isArray(body) ? body : [body];
      callsPerRequest.push(calls.length);
      const passed = calls.filter((call) => !refuses(call));
      const passedAnswers: { id: number }[] =
        passed.length === 0
          ? []
          : await (
              await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(passed) })
            ).json();
      const answers = calls.map((call) =>
        refuses(call)
          ? { jsonrpc: '2.0', id: call.id, error: { code: -32000, message: 'block too heavy to trace whole' } }
          : passedAnswers.find((answer) => answer.id === call.id),
      );
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(Array.isArray(body) ? answers : answers[0]));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    callsPerRequest,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

test('a node that refuses block tracing is traced one transaction at a time, to the same result', async () => {
  const byBlock = createRpcClient({ url: blockNode.url });
  const byTransaction = createRpcClient({ url: transactionNode.url });
  for (const [method, block] of [
    ['trace_block', parityBlock],
    ['debug_traceBlockByNumber', callTracerBlock],
  ] as const) {
    const whole = await fetchBlockTraces(byBlock, method, block);
    const single = await fetchBlockTraces(byTransaction, method, block);
    assert.ok(
      whole.internalTransactions.length > block.transactionHashes.length,
      `${method}: ${whole.internalTransactions.length} frames for ${block.transactionHashes.length} transactions`,
    );
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

for (const method of ['trace_block', 'debug_traceBlockByNumber'] as const) {
  test(`${method}: a batch of blocks is traced with one HTTP request, each block checked against its own answer`, async () => {
    const before = etlNode.httpRequests.length;
    const batch = await fetchBatchTraces(createRpcClient({ url: etlNode.url }), method, etlUntraced);
    assert.deepEqual(etlNode.httpRequests.slice(before), [{ calls: etlUntraced.length, batch: true }]);
    assert.deepEqual(
      batch.map((traces) => [traces.blockHash, traces.blockNumber]),
      etlUntraced.map((block) => [block.hash, block.number]),
    );
    for (const [i, { block }] of etlBlocks.entries()) {
      assert.ok(
        batch[i]!.internalTransactions.length >= block.transactionHashes.length,
        `block ${block.number}: ${batch[i]!.internalTransactions.length} frames for ${block.transactionHashes.length} transactions`,
      );
      assert.deepEqual(new Set(batch[i]!.internalTransactions.map((t) => t.transactionHash)), new Set(block.transactionHashes));
      assert.equal(batch[i]!.rewards.length, method === 'trace_block' ? 1 : 0);
    }
    // A batch holding a block whose traces miss a transaction stored is refused whole.
    const grown = etlUntraced.map((block, i) =>
      i === 2 ? { ...block, transactionHashes: [...block.transactionHashes, `0x${'ee'.repeat(32)}` as Hex] } : block,
    );
    await assert.rejects(fetchBatchTraces(createRpcClient({ url: etlNode.url }), method, grown), InvalidNodeResponseError);
  });

  test(`${method}: a block refused in the middle of a batch is traced one transaction at a time, alone`, async () => {
    const refusedBlock = etlUntraced[1]!;
    const node = await startRefusingNode(etlNode.url, (call) => call.method === method && call.params[0] === hex(refusedBlock.number));
    try {
      const whole = await fetchBatchTraces(createRpcClient({ url: etlNode.url }), method, etlUntraced);
      const fellBack = await fetchBatchTraces(createRpcClient({ url: node.url }), method, etlUntraced);
      // The block calls in one request, then the refused block's transaction calls in another.
      assert.deepEqual(node.callsPerRequest, [etlUntraced.length, refusedBlock.transactionHashes.length]);
      assert.deepEqual(fellBack[1]!.internalTransactions, whole[1]!.internalTransactions);
      assert.deepEqual(fellBack[1]!.rewards, [], 'rewards come from block calls only');
      assert.deepEqual([fellBack[0], ...fellBack.slice(2)], [whole[0], ...whole.slice(2)]);
    } finally {
      await node.stop();
    }
  });
}
