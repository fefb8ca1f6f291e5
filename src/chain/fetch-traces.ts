import type { BlockTraces, Hex, InternalTransactionRecord } from '../model.js';
import type { TraceMethod } from './capabilities.js';
import { flattenCallFrame } from './call-tracer.js';
import { RpcError } from './errors.js';
import { type Complain, complainAbout } from './node-fields.js';
import { decodeParityTraces } from './parity-traces.js';
import type { RpcClient } from './rpc.js';
import { readObject } from './trace-fields.js';

/** A stored block still to trace: what the node's answer is checked against. */
export interface UntracedBlock {
  hash: Hex;
  number: bigint;
  /** In block order. */
  transactionHashes: Hex[];
}

const hexNumber = (n: bigint) => `0x${n.toString(16)}`;

/**
 * Traces one block with the node's fastest method; when the node refuses the block call (a
 * transaction too heavy for its block tracer, a method limited per call), traces it one transaction
 * at a time. Reward traces come from the block call only.
 */
export async function fetchBlockTraces(client: RpcClient, method: TraceMethod, block: UntracedBlock): Promise<BlockTraces> {
  const complain = complainAbout(`traces of block ${block.number}`);
  const traces = method === 'trace_block' ? await parityTraces(client, block, complain) : await callTracerTraces(client, block, complain);
  const traced = new Set(traces.internalTransactions.map((t) => t.transactionIndex));
  block.transactionHashes.forEach((hash, index) => {
    if (!traced.has(index)) complain(`transaction ${hash}`, 'has no trace');
  });
  for (const t of traces.internalTransactions) {
    if (block.transactionHashes[t.transactionIndex] !== t.transactionHash) {
      complain(`transaction ${t.transactionIndex}`, `is not ${t.transactionHash} in the block traced`);
    }
  }
  return { blockHash: block.hash, blockNumber: block.number, ...traces };
}

async function parityTraces(client: RpcClient, block: UntracedBlock, complain: Complain) {
  try {
    return decodeParityTraces(await client.request('trace_block', [hexNumber(block.number)]), block.hash, complain);
  } catch (error) {
    if (!(error instanceof RpcError)) throw error;
    const answers = await client.batch<unknown[]>(block.transactionHashes.map((hash) => ({ method: 'trace_transaction', params: [hash] })));
    return decodeParityTraces(answers.flat(), block.hash, complain);
  }
}

async function callTracerTraces(client: RpcClient, block: UntracedBlock, complain: Complain) {
  const tracer = { tracer: 'callTracer' };
  let roots: unknown[];
  try {
    const answer = await client.request<unknown>('debug_traceBlockByNumber', [hexNumber(block.number), tracer]);
    if (!Array.isArray(answer)) complain('', 'is not a list of transaction traces');
    if (answer.length !== block.transactionHashes.length) {
      complain('', `holds ${answer.length} transaction traces for ${block.transactionHashes.length} transactions`);
    }
    roots = answer.map((entry: unknown, i) => {
      const { txHash, result } = readObject(entry, `[${i}]`, complain);
      if (txHash !== undefined && txHash !== block.transactionHashes[i]) complain(`[${i}].txHash`, 'is not a transaction of the block traced');
      return result;
    });
  } catch (error) {
    if (!(error instanceof RpcError)) throw error;
    roots = await client.batch<unknown>(block.transactionHashes.map((hash) => ({ method: 'debug_traceTransaction', params: [hash, tracer] })));
  }
  const internalTransactions: InternalTransactionRecord[] = roots.flatMap((root, i) =>
    flattenCallFrame(root, i, block.transactionHashes[i]!, complain),
  );
  return { internalTransactions, rewards: [] };
}
