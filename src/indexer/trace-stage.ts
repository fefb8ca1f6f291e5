import { setTimeout as sleep } from 'node:timers/promises';
import type { Pool } from 'pg';
import type { Logger } from 'pino';
import type { TraceMethod } from '../chain/capabilities.js';
import { fetchBatchTraces } from '../chain/fetch-traces.js';
import type { RpcClient } from '../chain/rpc.js';
import type { UntracedBlock } from '../model.js';
import { findUntracedBlocks } from '../store/untraced-blocks.js';
import { writeBlockTraces } from '../store/write-traces.js';
import { createDrainSignal } from './drain-signal.js';
import { loggedRetry, type Backoff } from './retry.js';

export interface TraceStageOptions {
  pool: Pool;
  /** The client for trace calls (ETHEREUM_JSONRPC_TRACE_URL, else the node's). */
  client: RpcClient;
  traceMethod: TraceMethod;
  logger: Logger;
  batchSize: number;
  concurrency: number;
  pollIntervalMs: number;
  backoff?: Backoff;
}

export interface TraceStage {
  /** Blocks traced since the stage started. */
  readonly tracedBlocks: () => number;
  /** Resolves the next time the stage finds no block left to trace (or when it ends). */
  drained(): Promise<void>;
  /** Settles when the stage ends: on stop(), or on a fault. */
  done: Promise<void>;
  stop(): Promise<void>;
}

const defaultBackoff: Backoff = { initialMs: 250, maxMs: 15_000 };

/**
 * Traces the consensus blocks the indexer has stored and not yet traced, lowest first, several
 * batches at once, until stopped. Everything it writes is keyed on `blocks.traced_at`, so a restart
 * picks up where it stopped, and blocks and transactions are served before their traces arrive.
 */
export function startTraceStage(options: TraceStageOptions): TraceStage {
  const controller = new AbortController();
  let traced = 0;
  const drained = createDrainSignal();
  const progress = { onTraced: (count: number) => (traced += count), onDrained: drained.fire };
  const done = run(options, controller.signal, progress)
    .catch((error: unknown) => {
      if (!controller.signal.aborted) throw error;
    })
    .finally(drained.fire);
  return {
    tracedBlocks: () => traced,
    drained: drained.next,
    done,
    async stop() {
      controller.abort();
      await done.catch(() => undefined);
    },
  };
}

interface Progress {
  onTraced(count: number): void;
  onDrained(): void;
}

async function run(options: TraceStageOptions, signal: AbortSignal, progress: Progress): Promise<void> {
  const retry = loggedRetry(options.logger, options.backoff ?? defaultBackoff, signal);
  while (!signal.aborted) {
    // A failed round starts again from the search, so that blocks which lost consensus meanwhile
    // (their traces now come from the other branch) drop out instead of failing forever.
    const traced = await retry('tracing blocks', () => traceRound(options, progress));
    if (traced === 0) {
      progress.onDrained();
      await sleep(options.pollIntervalMs, undefined, { signal }).catch(() => undefined);
    }
  }
}

/**
 * Traces and stores the lowest untraced blocks, several batches at once, each batch's block calls in
 * JSON-RPC batches; returns how many it found.
 */
async function traceRound(options: TraceStageOptions, progress: Progress): Promise<number> {
  const blocks = await findUntracedBlocks(options.pool, options.batchSize * options.concurrency);
  if (blocks.length === 0) return 0;
  const batches: UntracedBlock[][] = [];
  for (let i = 0; i < blocks.length; i += options.batchSize) batches.push(blocks.slice(i, i + options.batchSize));
  await Promise.all(
    batches.map(async (batch) => {
      const traces = await fetchBatchTraces(options.client, options.traceMethod, batch);
      progress.onTraced(await writeBlockTraces(options.pool, traces));
    }),
  );
  options.logger.debug(`traced blocks ${blocks[0]!.number}..${blocks.at(-1)!.number}`);
  return blocks.length;
}
