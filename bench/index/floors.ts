import { numberToHex } from 'viem';
import type { Pool } from 'pg';
import { detectCapabilities } from '../../src/chain/capabilities.js';
import { decodeBlock } from '../../src/chain/decode-block.js';
import { fetchBlocks } from '../../src/chain/fetch-blocks.js';
import { fetchBatchTraces } from '../../src/chain/fetch-traces.js';
import { createRpcClient, type RpcClient } from '../../src/chain/rpc.js';
import type { BlockBundle, BlockTraces } from '../../src/model.js';
import { blockBatches } from '../../src/indexer/blocks/block-batches.js';
import { copyRows } from '../../src/store/copy.js';
import { inTransaction } from '../../src/store/transaction.js';
import { blockRowSets } from '../../src/store/write-blocks.js';
import { internalTransactionRowSet } from '../../src/store/write-traces.js';
import type { ChainGenerator } from '../chain/generate.js';
import { createInProcessClient } from '../chain/in-process-client.js';

/** How many rows of each primary table a stretch of the chain makes. */
export interface RowCounts {
  blocks: number;
  transactions: number;
  withdrawals: number;
  tokenTransfers: number;
  internalTransactions: number;
}

export const totalRows = (counts: RowCounts): number =>
  counts.blocks + counts.transactions + counts.withdrawals + counts.tokenTransfers + counts.internalTransactions;

export function countRows(bundles: readonly BlockBundle[], traces: readonly BlockTraces[]): RowCounts {
  return {
    blocks: bundles.length,
    transactions: bundles.reduce((sum, b) => sum + b.transactions.length, 0),
    withdrawals: bundles.reduce((sum, b) => sum + b.withdrawals.length, 0),
    tokenTransfers: bundles.reduce((sum, b) => sum + b.tokenTransfers.length, 0),
    internalTransactions: traces.reduce((sum, t) => sum + t.internalTransactions.length, 0),
  };
}

export function addRows(into: RowCounts, more: RowCounts): void {
  for (const key of Object.keys(into) as (keyof RowCounts)[]) into[key] += more[key];
}

export const noRows = (): RowCounts => ({ blocks: 0, transactions: 0, withdrawals: 0, tokenTransfers: 0, internalTransactions: 0 });

export interface FloorResult {
  seconds: number;
  rows: RowCounts;
}

/** The same batch shape as the indexer's backfill. */
export interface Batching {
  batchSize: number;
  concurrency: number;
}

const tracesOf = (client: RpcClient, method: 'trace_block' | 'debug_traceBlockByNumber', bundles: readonly BlockBundle[]) =>
  fetchBatchTraces(
    client,
    method,
    bundles.map(({ block, transactions }) => ({
      hash: block.hash,
      number: block.number,
      transactionHashes: transactions.map((t) => t.hash),
    })),
  );

/**
 * The RPC and JSON limit: every block, its receipts and its traces fetched from the node and decoded
 * with the indexer's own code and batch shape, `concurrency` batches in flight, nothing written.
 */
export async function fetchAndDecodeFloor(nodeUrl: string, head: number, batching: Batching): Promise<FloorResult> {
  const client = createRpcClient({ url: nodeUrl });
  const capabilities = await detectCapabilities(client);
  const rows = noRows();
  const batches = blockBatches([{ from: 0n, to: BigInt(head) }], batching.batchSize);
  const started = performance.now();
  const worker = async () => {
    for (let next = batches.next(); !next.done; next = batches.next()) {
      const bundles = (await fetchBlocks(client, capabilities, next.value)).map(decodeBlock);
      addRows(rows, countRows(bundles, await tracesOf(client, capabilities.traceMethod, bundles)));
    }
  };
  await Promise.all(Array.from({ length: batching.concurrency }, worker));
  return { seconds: (performance.now() - started) / 1000, rows };
}

/** Blocks the node's own limit is measured over: its rate, not the whole chain, is what is asked. */
const NODE_FLOOR_BLOCKS = 5_000;

/**
 * The node's own limit: the same calls as the fetch-and-decode floor over the chain's first blocks,
 * answers parsed as JSON and nothing else, to show that the node is not what bounds the other figures.
 */
export async function nodeFloor(nodeUrl: string, head: number, batching: Batching): Promise<{ seconds: number; blocks: number }> {
  const client = createRpcClient({ url: nodeUrl });
  const last = Math.min(head, NODE_FLOOR_BLOCKS - 1);
  const batches = blockBatches([{ from: 0n, to: BigInt(last) }], batching.batchSize);
  const started = performance.now();
  const worker = async () => {
    for (let next = batches.next(); !next.done; next = batches.next()) {
      await client.batch(
        next.value.flatMap((n) => [
          { method: 'eth_getBlockByNumber', params: [numberToHex(n), true] },
          { method: 'eth_getBlockReceipts', params: [numberToHex(n)] },
        ]),
      );
      await client.batch(next.value.map((n) => ({ method: 'trace_block', params: [numberToHex(n)] })));
    }
  };
  await Promise.all(Array.from({ length: batching.concurrency }, worker));
  return { seconds: (performance.now() - started) / 1000, blocks: last + 1 };
}

const COPY_CHUNK_BLOCKS = 500;

/** The generated chain's blocks and traces, `chunk` blocks at a time, decoded by the indexer's own code without a node. */
export async function* generatedBlocks(
  chain: ChainGenerator,
  chunk: number,
): AsyncGenerator<{ bundles: BlockBundle[]; traces: BlockTraces[] }> {
  const client = createInProcessClient(chain);
  const capabilities = await detectCapabilities(client);
  for (let from = 0; from <= chain.head; from += chunk) {
    const numbers = Array.from({ length: Math.min(chunk, chain.head - from + 1) }, (_, i) => BigInt(from + i));
    const bundles = (await fetchBlocks(client, capabilities, numbers)).map(decodeBlock);
    yield { bundles, traces: await tracesOf(client, capabilities.traceMethod, bundles) };
  }
}

/**
 * The database limit: the primary rows the indexer writes (blocks, transactions, withdrawals, token
 * transfers, internal transactions), encoded as the indexer encodes them, then COPYed straight into the
 * same tables of a migrated, empty database, one transaction per chunk. Only the COPYs are timed: the
 * chain is generated and encoded between them.
 */
export async function copyFloor(pool: Pool, chain: ChainGenerator): Promise<FloorResult> {
  const rows = noRows();
  let seconds = 0;
  for await (const { bundles, traces } of generatedBlocks(chain, COPY_CHUNK_BLOCKS)) {
    const sets = [...blockRowSets(bundles), internalTransactionRowSet(traces)];
    const started = performance.now();
    await inTransaction(pool, async (connection) => {
      for (const set of sets) await copyRows(connection, set.table, set.columns, set.rows);
    });
    seconds += (performance.now() - started) / 1000;
    addRows(rows, countRows(bundles, traces));
  }
  return { seconds, rows };
}
