import { type BlockTraces, type Hex, type InternalTransactionRecord, type UntracedBlock, hexQuantity } from '../model.js';
import type { TraceMethod } from './capabilities.js';
import { flattenCallFrame } from './call-tracer.js';
import { RpcError } from './errors.js';
import { type Complain, complainAbout } from './node-fields.js';
import { decodeParityTraces } from './parity-traces.js';
import type { RpcCall, RpcClient } from './rpc.js';
import { readObject } from './trace-fields.js';

const callTracer = { tracer: 'callTracer' };

const blockCall = (method: TraceMethod, block: UntracedBlock): RpcCall =>
  method === 'trace_block' ? { method, params: [hexQuantity(block.number)] } : { method, params: [hexQuantity(block.number), callTracer] };

const transactionCall = (method: TraceMethod, hash: Hex): RpcCall =>
  method === 'trace_block'
    ? { method: 'trace_transaction', params: [hash] }
    : { method: 'debug_traceTransaction', params: [hash, callTracer] };

type Traces = Pick<BlockTraces, 'internalTransactions' | 'rewards'>;

/**
 * Traces blocks with the node's fastest method, their block calls sent as JSON-RPC batches; a block
 * whose block call the node refuses (a transaction too heavy for its block tracer, a method limited
 * per call) is traced one transaction at a time, the other blocks' answers standing. Reward traces
 * come from block calls only. Answers in block order.
 */
export async function fetchBatchTraces(client: RpcClient, method: TraceMethod, blocks: readonly UntracedBlock[]): Promise<BlockTraces[]> {
  const blockAnswers = await client.batchSettled<unknown>(blocks.map((block) => blockCall(method, block)));
  const refused = blocks.filter((_, i) => blockAnswers[i] instanceof RpcError);
  const transactionAnswers = await client.batch<unknown>(
    refused.flatMap((block) => block.transactionHashes.map((hash) => transactionCall(method, hash))),
  );
  const answersByRefusedBlock = new Map<UntracedBlock, unknown[]>();
  let start = 0;
  for (const block of refused) {
    answersByRefusedBlock.set(block, transactionAnswers.slice(start, start + block.transactionHashes.length));
    start += block.transactionHashes.length;
  }
  return blocks.map((block, i) => {
    const complain = complainAbout(`traces of block ${block.number}`);
    const answers = answersByRefusedBlock.get(block);
    const traces =
      answers === undefined
        ? decodeBlockAnswer(method, block, blockAnswers[i], complain)
        : decodeTransactionAnswers(method, block, answers, complain);
    checkTransactions(block, traces.internalTransactions, complain);
    return { blockHash: block.hash, blockNumber: block.number, ...traces };
  });
}

function decodeBlockAnswer(method: TraceMethod, block: UntracedBlock, answer: unknown, complain: Complain): Traces {
  return method === 'trace_block'
    ? decodeParityTraces(answer, block.hash, complain)
    : callFrames(block, callTracerRoots(block, answer, complain), complain);
}

/** The answers of the block's transactions, one each, in block order. */
function decodeTransactionAnswers(method: TraceMethod, block: UntracedBlock, answers: readonly unknown[], complain: Complain): Traces {
  return method === 'trace_block' ? decodeParityTraces(answers.flat(), block.hash, complain) : callFrames(block, answers, complain);
}

/** fetchBatchTraces for one block. */
export async function fetchBlockTraces(client: RpcClient, method: TraceMethod, block: UntracedBlock): Promise<BlockTraces> {
  const [traces] = await fetchBatchTraces(client, method, [block]);
  return traces!;
}

/** Every transaction of the block traced, each under its own hash. */
function checkTransactions(block: UntracedBlock, internalTransactions: readonly InternalTransactionRecord[], complain: Complain): void {
  const traced = new Set(internalTransactions.map((t) => t.transactionIndex));
  block.transactionHashes.forEach((hash, index) => {
    if (!traced.has(index)) complain(`transaction ${hash}`, 'has no trace');
  });
  for (const t of internalTransactions) {
    if (block.transactionHashes[t.transactionIndex] !== t.transactionHash) {
      complain(`transaction ${t.transactionIndex}`, `is not ${t.transactionHash} in the block traced`);
    }
  }
}

/** The top-level call frames of a debug_traceBlockByNumber answer, one per transaction of the block. */
function callTracerRoots(block: UntracedBlock, answer: unknown, complain: Complain): unknown[] {
  if (!Array.isArray(answer)) complain('', 'is not a list of transaction traces');
  if (answer.length !== block.transactionHashes.length) {
    complain('', `holds ${answer.length} transaction traces for ${block.transactionHashes.length} transactions`);
  }
  return answer.map((entry: unknown, i) => {
    const { txHash, result } = readObject(entry, `[${i}]`, complain);
    if (txHash !== undefined && txHash !== block.transactionHashes[i])
      complain(`[${i}].txHash`, 'is not a transaction of the block traced');
    return result;
  });
}

function callFrames(block: UntracedBlock, roots: readonly unknown[], complain: Complain): Traces {
  const internalTransactions = roots.flatMap((root, i) => flattenCallFrame(root, i, block.transactionHashes[i]!, complain));
  return { internalTransactions, rewards: [] };
}
