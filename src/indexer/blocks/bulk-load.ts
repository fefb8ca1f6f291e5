import type { Pool } from 'pg';
import type { Logger } from 'pino';
import type { TraceMethod } from '../../chain/capabilities.js';
import { fetchBatchTraces } from '../../chain/fetch-traces.js';
import type { RpcClient } from '../../chain/rpc.js';
import { runDependentTasks } from '../../lib/dependent-tasks.js';
import type { BlockBundle, BlockTraces } from '../../model.js';
import { buildDroppedIndex, indexesToBuild } from '../../store/bulk-indexes.js';
import { beginBulkLoad, enterBulkLoadPhase, finishBulkLoad, ledgerStepsLeft, runLedgerStep } from '../../store/bulk-load.js';
import { findMissingRanges, highestIndexedBlock } from '../../store/index-progress.js';
import { type BulkLoadState, readBulkLoad } from '../../store/read/bulk-load.js';
import { writeBulkBlockBundles } from '../../store/write-blocks.js';
import type { Retry } from '../retry.js';
import { blockBatches } from './block-batches.js';
import { createWriteQueue } from './write-queue.js';
import { writeRetried } from './write-retried.js';

/** When and how history is loaded in bulk (INDEXER_BULK_LOAD_*). */
export interface BulkLoadSettings {
  /** Blocks at least this far below the node's head are loaded in bulk; the rest is indexed as usual. */
  distance: number;
  /** Fewer blocks than this to load are indexed as usual: the switch would cost more than it saves. 0: no new bulk load begins. */
  minBlocks: number;
  /** PostgreSQL's memory for each step of the switch: work_mem of a ledger step, maintenance_work_mem of an index build. */
  workMem: string;
  /** Steps of the switch run at once, each on a connection of its own. */
  switchConcurrency: number;
}

/** What a bulk load needs of the indexer that runs it. */
export interface BulkLoadContext {
  pool: Pool;
  logger: Logger;
  retry: Retry;
  settings: BulkLoadSettings;
  batchSize: number;
  /** Trace calls, made in the same pass as the blocks'; null when internal transactions are not indexed. */
  traces: { client: RpcClient; method: TraceMethod } | null;
  /** Fetches and decodes blocks, retried. */
  fetchBundles(numbers: readonly bigint[]): Promise<BlockBundle[]>;
  /** Runs `fetchAndStore` over the batches, several at once. */
  backfill(batches: Iterator<bigint[]>, fetchAndStore: (numbers: bigint[]) => Promise<void>): Promise<void>;
  /** Hears of each batch stored. */
  onStored(bundles: readonly BlockBundle[]): void;
}

/**
 * The bulk load to run: the one a restart finds under way (whatever the settings now: a database left
 * without its indexes serves nothing), else a new one when the database holds no block yet and at least
 * `minBlocks` blocks lie `distance` or more below the node's head (up to LAST_BLOCK at most); null when
 * the blocks are indexed as usual.
 */
export async function planBulkLoad(
  pool: Pool,
  settings: BulkLoadSettings,
  range: { firstBlock: bigint; lastBlock: bigint | null; nodeHead: () => Promise<bigint> },
): Promise<BulkLoadState | null> {
  const underWay = await readBulkLoad(pool);
  if (underWay !== null) return underWay;
  if (settings.minBlocks === 0) return null;
  const enough = (last: bigint) => last - range.firstBlock + 1n >= BigInt(settings.minBlocks);
  // A short LAST_BLOCK decides without asking the node.
  if (range.lastBlock !== null && !enough(range.lastBlock)) return null;
  if ((await highestIndexedBlock(pool)) !== null) return null;
  const belowHead = (await range.nodeHead()) - BigInt(settings.distance);
  const last = range.lastBlock !== null && range.lastBlock < belowHead ? range.lastBlock : belowHead;
  if (!enough(last)) return null;
  await beginBulkLoad(pool, range.firstBlock, last);
  return readBulkLoad(pool);
}

/**
 * Runs a bulk load from the phase it is in to its end: the blocks loaded (with their traces), then the
 * switch to the normal mode: the ledger built step by step, each dropped index built again, statistics
 * gathered. Each step commits with its record, so that a restart resumes after the last ones committed;
 * the steps of a phase run `switchConcurrency` at a time.
 */
export async function runBulkLoad(context: BulkLoadContext, state: BulkLoadState): Promise<void> {
  const { pool, logger, retry, settings } = context;
  const range = `blocks ${state.firstBlock} to ${state.lastBlock}`;
  let phase = state.phase;
  if (phase === 'loading') {
    logger.info(`loading ${range} in bulk: without secondary indexes and ledger, built once the blocks are in`);
    await load(context, state);
    await retry('entering the ledger phase of the bulk load', () => enterBulkLoadPhase(pool, 'ledger'));
    phase = 'ledger';
  }
  if (phase === 'ledger') {
    const steps = await retry('listing the ledger steps to run', () => ledgerStepsLeft(pool));
    await runDependentTasks(steps, settings.switchConcurrency, (step) =>
      timed(logger, `bulk load: ${step.name} built`, () =>
        retry(`building ${step.name} of the bulk load`, () => runLedgerStep(pool, step, settings.workMem)),
      ),
    );
    await retry('entering the index phase of the bulk load', () => enterBulkLoadPhase(pool, 'indexes'));
    phase = 'indexes';
  }
  if (phase === 'indexes') {
    const names = await retry('listing the indexes to build', () => indexesToBuild(pool));
    await runDependentTasks(
      names.map((name) => ({ name })),
      settings.switchConcurrency,
      ({ name }) =>
        timed(logger, `bulk load: index ${name} built`, () =>
          retry(`building index ${name}`, () => buildDroppedIndex(pool, name, settings.workMem)),
        ),
    );
    await retry('entering the statistics phase of the bulk load', () => enterBulkLoadPhase(pool, 'statistics'));
  }
  await timed(logger, `bulk load of ${range} done: statistics gathered`, () => retry('gathering statistics', () => finishBulkLoad(pool)));
}

/** Fetches the blocks of the load that are not stored yet, with their traces, and stores them in bulk. */
async function load(context: BulkLoadContext, state: BulkLoadState): Promise<void> {
  const { pool, retry, traces } = context;
  const writes = createWriteQueue<{ bundle: BlockBundle; traces: BlockTraces | null }>(async (items) => {
    const bundles = items.map((i) => i.bundle);
    const traced = traces === null ? null : items.map((i) => i.traces as BlockTraces);
    await writeRetried(retry, 'writing blocks in bulk', pool, bundles, () => writeBulkBlockBundles(pool, bundles, traced));
    context.onStored(bundles);
  });
  const missing = await retry('finding the blocks still to load', () => findMissingRanges(pool, state.firstBlock, state.lastBlock));
  await context.backfill(blockBatches(missing, context.batchSize), async (numbers) => {
    const bundles = await context.fetchBundles(numbers);
    const blockTraces =
      traces === null
        ? null
        : await retry(`tracing blocks from ${numbers[0]}`, () =>
            fetchBatchTraces(
              traces.client,
              traces.method,
              bundles.map(({ block, transactions }) => ({
                hash: block.hash,
                number: block.number,
                transactionHashes: transactions.map((t) => t.hash),
              })),
            ),
          );
    await writes.store(bundles.map((bundle, i) => ({ bundle, traces: blockTraces?.[i] ?? null })));
  });
}

async function timed(logger: Logger, done: string, task: () => Promise<void>): Promise<void> {
  const started = performance.now();
  await task();
  logger.info(`${done} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}
