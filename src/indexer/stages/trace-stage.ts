import type { Pool } from 'pg';
import type { TraceMethod } from '../../chain/capabilities.js';
import { fetchBatchTraces } from '../../chain/fetch-traces.js';
import type { RpcClient } from '../../chain/rpc.js';
import type { UntracedBlock } from '../../model.js';
import { findUntracedBlocks } from '../../store/untraced-blocks.js';
import { writeBlockTraces } from '../../store/write-traces.js';
import { type BackgroundLoopOptions, startBackgroundLoop, type WakeableLoop } from './background-loop.js';

export interface TraceStageOptions extends BackgroundLoopOptions {
  pool: Pool;
  /** The client for trace calls (ETHEREUM_JSONRPC_TRACE_URL, else the node's). */
  client: RpcClient;
  traceMethod: TraceMethod;
  batchSize: number;
  concurrency: number;
}

export interface TraceStage extends WakeableLoop {
  /** Blocks traced since the stage started. */
  readonly tracedBlocks: () => number;
}

/**
 * Traces the consensus blocks the indexer has stored and not yet traced, lowest first, several
 * batches at once, until stopped. Everything it writes is keyed on `blocks.traced_at`, so a restart
 * picks up where it stopped, and blocks and transactions are served before their traces arrive.
 */
export function startTraceStage(options: TraceStageOptions): TraceStage {
  let traced = 0;
  const onTraced = (count: number) => (traced += count);
  // A failed round starts again from the search, so that blocks which lost consensus meanwhile
  // (their traces now come from the other branch) drop out instead of failing forever.
  const loop = startBackgroundLoop(options, async (retry) => (await retry('tracing blocks', () => traceRound(options, onTraced))) > 0);
  return Object.assign(loop, { tracedBlocks: () => traced });
}

/**
 * Traces and stores the lowest untraced blocks, several batches at once, each batch's block calls in
 * JSON-RPC batches; returns how many it found.
 */
async function traceRound(options: TraceStageOptions, onTraced: (count: number) => void): Promise<number> {
  const blocks = await findUntracedBlocks(options.pool, options.batchSize * options.concurrency);
  if (blocks.length === 0) return 0;
  const batches: UntracedBlock[][] = [];
  for (let i = 0; i < blocks.length; i += options.batchSize) batches.push(blocks.slice(i, i + options.batchSize));
  await Promise.all(
    batches.map(async (batch) => {
      const traces = await fetchBatchTraces(options.client, options.traceMethod, batch);
      onTraced(await writeBlockTraces(options.pool, traces));
    }),
  );
  options.logger.debug(`traced blocks ${blocks[0]!.number}..${blocks.at(-1)!.number}`);
  return blocks.length;
}
