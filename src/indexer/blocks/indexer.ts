import type { Pool } from 'pg';
import type { Logger } from 'pino';
import type { NodeCapabilities } from '../../chain/capabilities.js';
import { decodeBlock } from '../../chain/decode-block.js';
import { ChainChangedError } from '../../chain/errors.js';
import { fetchBlocks, fetchHeadNumber } from '../../chain/fetch-blocks.js';
import { fetchBlockHeader } from '../../chain/fetch-header.js';
import { subscribeNewHeads, type NewHeadsSubscription } from '../../chain/new-heads.js';
import type { RpcClient } from '../../chain/rpc.js';
import type { BlockBundle, Hex, IndexerStatus } from '../../model.js';
import { consensusBlockHash, findBrokenLink, findMissingRanges, highestIndexedBlock } from '../../store/index-progress.js';
import { retractBlocksFrom } from '../../store/retract-blocks.js';
import { writeBlockBundles } from '../../store/write-blocks.js';
import { writeRetried } from './write-retried.js';
import { AdaptiveBatchSize } from './adaptive-batch.js';
import { type BulkLoadContext, type BulkLoadSettings, planBulkLoad, runBulkLoad } from './bulk-load.js';
import { blockBatches } from './block-batches.js';
import { createRetry, type Backoff, type Retry } from '../retry.js';
import { initialStatus, reportTo } from './status.js';
import { createWakeup, type Wakeup } from '../../lib/wakeup.js';
import { createWriteQueue } from './write-queue.js';

export interface IndexerOptions {
  pool: Pool;
  client: RpcClient;
  capabilities: NodeCapabilities;
  logger: Logger;
  firstBlock: bigint;
  /** Index exactly up to this block, then stop; null follows the head. */
  lastBlock: bigint | null;
  /** Blocks per node request at most; fewer while the node struggles. */
  batchSize: number;
  concurrency: number;
  /** How often the head is polled; with a websocket, new heads wake the indexer sooner. */
  pollIntervalMs: number;
  /** How far back a reorg may reach before the indexer stops rather than guess. */
  maxReorgDepth: number;
  /** The node's websocket URL, for `eth_subscribe` newHeads; null or absent polls only. */
  wsUrl?: string | null;
  /** History far below the head loaded in bulk (see bulk-load.ts); null or absent indexes every block as usual. */
  bulkLoad?: { settings: BulkLoadSettings; traces: BulkLoadContext['traces'] } | null;
  backoff?: Backoff;
  /**
   * Called after each write of new heads while following the chain, so that the stages that read them
   * start now; not during a catch-up, where the stages' rests batch their work.
   */
  onHeadsStored?: () => void;
}

export interface Indexer {
  status: IndexerStatus;
  /** Resolves once the blocks up to the head seen at start (or LAST_BLOCK) are indexed. */
  caughtUp: Promise<void>;
  /** Settles when the indexer ends: after lastBlock, on stop(), or on a fatal error (a reorg too deep, a bug). */
  done: Promise<void>;
  stop(): Promise<void>;
}

export class ReorgTooDeepError extends Error {
  override name = 'ReorgTooDeepError';
}

/** Polls between the checks of the recent chain for gaps and broken links (see `repair`). */
const POLLS_PER_REPAIR = 10;

export function startIndexer(options: IndexerOptions): Indexer {
  const controller = new AbortController();
  let stopRequested = false;
  const status = initialStatus(options.batchSize);
  let markCaughtUp!: () => void;
  const caughtUp = new Promise<void>((resolve) => (markCaughtUp = resolve));
  const done = run(options, status, controller, markCaughtUp).then(
    () => {
      status.phase = stopRequested ? 'stopped' : 'done';
    },
    (error: unknown) => {
      // What is still in flight beside the task that failed stops too.
      controller.abort();
      status.phase = 'stopped';
      if (stopRequested) return;
      throw error;
    },
  );
  return {
    status,
    caughtUp,
    done,
    async stop() {
      stopRequested = true;
      controller.abort();
      await done.catch(() => undefined);
    },
  };
}

/** What every part of a run shares: the node and database access, retried, and one queue of writes. */
interface IndexingContext {
  options: IndexerOptions;
  status: IndexerStatus;
  signal: AbortSignal;
  retry: Retry;
  fetchBundles(numbers: readonly bigint[]): Promise<BlockBundle[]>;
  /** Runs a task alone among the run's database writes, in queue order. */
  exclusive<T>(task: () => Promise<T>): Promise<T>;
  store(bundles: BlockBundle[]): Promise<void>;
}

async function run(options: IndexerOptions, status: IndexerStatus, controller: AbortController, markCaughtUp: () => void): Promise<void> {
  const indexing = createIndexingContext(options, status, controller.signal);
  const head = options.lastBlock ?? (await indexing.retry('reading the head', () => fetchHeadNumber(options.client)));
  status.head = head;
  status.phase = 'backfilling';
  if (options.bulkLoad) await loadInBulk(indexing, options.bulkLoad, head);
  let caughtUp = false;
  const catchUp = async () => {
    // A reorg since the last run may have replaced stored blocks up to the head: the tip is compared after each pass.
    do await repair(indexing, options.firstBlock, head);
    while (await indexing.retry('comparing the tip with the node', () => checkTip(indexing, head)));
    caughtUp = true;
    options.logger.info({ blocks: status.blocksIndexed }, `indexed blocks ${options.firstBlock} to ${head}`);
    markCaughtUp();
    if (options.lastBlock === null) status.phase = 'following';
  };
  if (options.lastBlock !== null) return catchUp();

  // Realtime starts above the head seen at start, beside the catch-up below it.
  const wakeup = createWakeup();
  const heads = await watchHeads(options, status, wakeup);
  try {
    await allOrNothing([catchUp(), follow(indexing, wakeup, () => (caughtUp ? null : head))], controller);
  } finally {
    heads?.close();
  }
}

/** Runs tasks together; the first to fail stops the others, and its error is the result. */
async function allOrNothing(tasks: Promise<void>[], controller: AbortController): Promise<void> {
  let failure: { error: unknown } | null = null;
  await Promise.all(
    tasks.map((task) =>
      task.catch((error: unknown) => {
        failure ??= { error };
        controller.abort();
      }),
    ),
  );
  if (failure !== null) throw (failure as { error: unknown }).error;
}

function createIndexingContext(options: IndexerOptions, status: IndexerStatus, signal: AbortSignal): IndexingContext {
  const retry = createRetry({ logger: options.logger, backoff: options.backoff, signal, report: reportTo(status) });
  const batchSize = new AdaptiveBatchSize(options.batchSize);
  const fetchBundles = async (numbers: readonly bigint[]): Promise<BlockBundle[]> => {
    const bundles: BlockBundle[] = [];
    while (bundles.length < numbers.length) {
      const fetched = await retry(`fetching blocks from ${numbers[bundles.length]}`, async () => {
        const chunk = numbers.slice(bundles.length, bundles.length + batchSize.current);
        try {
          const decoded = (await fetchBlocks(options.client, options.capabilities, chunk)).map(decodeBlock);
          batchSize.onSuccess();
          return decoded;
        } catch (error) {
          batchSize.onFailure();
          throw error;
        } finally {
          status.batchSize = batchSize.current;
        }
      });
      bundles.push(...fetched);
    }
    return bundles;
  };
  const writes = createWriteQueue<BlockBundle>(async (bundles) => {
    await writeRetried(retry, 'writing blocks', options.pool, bundles, () => writeBlockBundles(options.pool, bundles));
    status.blocksIndexed += bundles.length;
    status.transactionsIndexed += bundles.reduce((sum, bundle) => sum + bundle.transactions.length, 0);
  });
  return { options, status, signal, retry, fetchBundles, exclusive: writes.exclusive, store: writes.store };
}

/** Subscribes to new heads when the node has a websocket; without one (or if it fails) polling alone goes on. */
async function watchHeads(options: IndexerOptions, status: IndexerStatus, wakeup: Wakeup): Promise<NewHeadsSubscription | null> {
  if (!options.wsUrl) return null;
  try {
    const subscription = await subscribeNewHeads(options.wsUrl, {
      onHead: () => wakeup.wake(),
      onError: (error) => options.logger.warn(`new heads over the websocket: ${error.message}; polling until it is back`),
    });
    status.newHeads = 'websocket';
    return subscription;
  } catch (error) {
    options.logger.warn(
      `cannot subscribe to new heads at ${options.wsUrl} (${(error as Error).message}); polling every ${options.pollIntervalMs} ms`,
    );
    return null;
  }
}

/** The bulk load a restart finds under way, or a new one if the history to index calls for it, run to its end. */
async function loadInBulk(indexing: IndexingContext, bulkLoad: NonNullable<IndexerOptions['bulkLoad']>, head: bigint): Promise<void> {
  const { options, status, retry } = indexing;
  const nodeHead = async () => (options.lastBlock === null ? head : fetchHeadNumber(options.client));
  const state = await retry('planning a bulk load', () =>
    planBulkLoad(options.pool, bulkLoad.settings, { firstBlock: options.firstBlock, lastBlock: options.lastBlock, nodeHead }),
  );
  if (state === null) return;
  await runBulkLoad(
    {
      pool: options.pool,
      logger: options.logger,
      retry,
      settings: bulkLoad.settings,
      batchSize: options.batchSize,
      traces: bulkLoad.traces,
      fetchBundles: indexing.fetchBundles,
      backfill: (batches, fetchAndStore) => backfill(indexing, batches, fetchAndStore),
      onStored: (bundles) => {
        status.blocksIndexed += bundles.length;
        status.transactionsIndexed += bundles.reduce((sum, bundle) => sum + bundle.transactions.length, 0);
      },
    },
    state,
  );
}

/**
 * Makes [from, to] complete and linked: indexes every missing block, then checks that each stored
 * block's parent is the stored block below it. A broken link means that a block was fetched from a
 * branch that lost (a reorg while catching up): the stale blocks are retracted and the pass repeats.
 */
async function repair(indexing: IndexingContext, from: bigint, to: bigint): Promise<void> {
  const { pool, client } = indexing.options;
  while (!indexing.signal.aborted) {
    const missing = await indexing.retry('finding missing blocks', () => findMissingRanges(pool, from, to));
    await backfill(indexing, blockBatches(missing, indexing.options.batchSize));
    const broken = await indexing.retry('checking that stored blocks link up', () => findBrokenLink(pool, from, to));
    if (broken === null) return;
    await indexing.retry(`repairing the chain at block ${broken}`, () =>
      indexing.exclusive(async () => {
        // Either the upper block of the pair is stale, or it is the node's and a block below it is.
        const header = await fetchBlockHeader(client, broken);
        const staleFrom =
          (await lowestStaleHeight(indexing, broken, header.hash)) ?? (await lowestStaleHeight(indexing, broken - 1n, header.parentHash));
        if (staleFrom === null)
          throw new ChainChangedError(`stored blocks ${broken - 1n} and ${broken} do not link up, yet the node has both`);
        await retractStale(indexing, staleFrom);
      }),
    );
  }
}

/** Fetches and stores the given batches (`fetchAndStore`, the usual write by default), several in flight at once. */
async function backfill(
  indexing: IndexingContext,
  batches: Iterator<bigint[]>,
  fetchAndStore = async (numbers: bigint[]) => indexing.store(await indexing.fetchBundles(numbers)),
): Promise<void> {
  const worker = async () => {
    for (let next = batches.next(); !next.done && !indexing.signal.aborted; next = batches.next()) await fetchAndStore(next.value);
  };
  await Promise.all(Array.from({ length: indexing.options.concurrency }, worker));
}

/**
 * Follows the head: indexes each new block after the highest stored one (never at or below
 * `floor()`, which the catch-up is indexing), and every few polls checks the recent chain with
 * `repair` and against the node's block at our tip, which finds a reorg that left the chain no longer.
 */
async function follow(indexing: IndexingContext, wakeup: Wakeup, floor: () => bigint | null): Promise<void> {
  const { options, status, signal } = indexing;
  const window = BigInt(options.maxReorgDepth + options.batchSize * options.concurrency);
  for (let polls = 0; !signal.aborted;) {
    const latest = await indexing.retry('reading the head', () => fetchHeadNumber(options.client));
    status.head = latest;
    const highest = (await indexing.retry('reading the indexed head', () => highestIndexedBlock(options.pool))) ?? options.firstBlock - 1n;
    const below = floor();
    const indexed = below !== null && below > highest ? below : highest;
    if (latest > indexed) {
      await indexing.retry('following the head', () => followTo(indexing, indexed, latest));
      continue;
    }
    if (below === null && ++polls % POLLS_PER_REPAIR === 0 && indexed >= options.firstBlock) {
      const from = indexed - window > options.firstBlock ? indexed - window : options.firstBlock;
      await repair(indexing, from, indexed);
      await indexing.retry('comparing the tip with the node', () => checkTip(indexing, latest < indexed ? latest : indexed));
    }
    await wakeup.wait(options.pollIntervalMs, signal);
  }
}

/** Retracts the stored blocks from `height` down that the node no longer has; true when there were any. */
async function checkTip(indexing: IndexingContext, height: bigint): Promise<boolean> {
  const header = await fetchBlockHeader(indexing.options.client, height);
  return indexing.exclusive(async () => retractStale(indexing, await lowestStaleHeight(indexing, height, header.hash)));
}

/**
 * Indexes the blocks after `indexed` up to `latest`, one batch, checking that the batch continues
 * the stored chain; a block whose parent is not the stored block means a reorg, whose stale blocks
 * are retracted (the next round indexes the node's branch in their place).
 */
async function followTo(indexing: IndexingContext, indexed: bigint, latest: bigint): Promise<void> {
  const from = indexed + 1n;
  const size = BigInt(indexing.options.batchSize);
  const bundles = await indexing.fetchBundles(range(from, latest - from + 1n > size ? from + size - 1n : latest));
  for (let i = 1; i < bundles.length; i++) {
    if (bundles[i]!.block.parentHash !== bundles[i - 1]!.block.hash) {
      throw new ChainChangedError(`the node changed its chain while answering (block ${bundles[i]!.block.number})`);
    }
  }
  const first = bundles[0]!.block;
  if (first.number > indexing.options.firstBlock) {
    const retracted = await indexing.exclusive(async () =>
      retractStale(indexing, await lowestStaleHeight(indexing, first.number - 1n, first.parentHash)),
    );
    if (retracted) return;
  }
  await indexing.store(bundles);
  indexing.options.onHeadsStored?.();
}

/**
 * Walks down from `height`, where the node's chain has the block `nodeHash`, comparing the stored
 * consensus blocks with the node's: the lowest height whose stored block the node no longer has,
 * or null when the stored block at `height` is the node's (or there is none).
 */
async function lowestStaleHeight(indexing: IndexingContext, height: bigint, nodeHash: Hex): Promise<bigint | null> {
  const { options } = indexing;
  let stale: bigint | null = null;
  let expected = nodeHash;
  for (let depth = 0; height >= options.firstBlock; depth++, height--) {
    const stored = await consensusBlockHash(options.pool, height);
    if (stored === null || stored === expected) return stale;
    if (depth >= options.maxReorgDepth) {
      throw new ReorgTooDeepError(
        `a reorg deeper than ${options.maxReorgDepth} blocks replaced block ${height}; re-index from an earlier FIRST_BLOCK or raise INDEXER_MAX_REORG_DEPTH`,
      );
    }
    stale = height;
    const header = await fetchBlockHeader(options.client, height);
    if (header.hash !== expected) throw new ChainChangedError(`the node changed its chain while answering (block ${height})`);
    expected = header.parentHash;
  }
  return stale;
}

/** Takes the stale blocks off the canonical chain; true when there were any. */
async function retractStale(indexing: IndexingContext, staleFrom: bigint | null): Promise<boolean> {
  if (staleFrom === null) return false;
  const retracted = await retractBlocksFrom(indexing.options.pool, staleFrom);
  indexing.options.logger.warn(`reorg: ${retracted} block(s) from ${staleFrom} replaced by the node's chain`);
  return true;
}

function range(from: bigint, to: bigint): bigint[] {
  const numbers: bigint[] = [];
  for (let n = from; n <= to; n++) numbers.push(n);
  return numbers;
}
