import { setTimeout as sleep } from 'node:timers/promises';
import type { Pool } from 'pg';
import type { Logger } from 'pino';
import type { NodeCapabilities } from '../chain/capabilities.js';
import { decodeBlock } from '../chain/decode-block.js';
import { fetchBlocks, fetchHeadNumber } from '../chain/fetch-blocks.js';
import type { RpcClient } from '../chain/rpc.js';
import type { BlockBundle } from '../model.js';
import { consensusBlockHash, findMissingRanges, highestIndexedBlock } from '../store/index-progress.js';
import { retractBlocksFrom } from '../store/retract-blocks.js';
import { writeBlockBundles } from '../store/write-blocks.js';
import { blockBatches } from './block-batches.js';
import { retryUntilDone, type Backoff } from './retry.js';
import { createSerialQueue } from './serial.js';
import { initialStatus, type IndexerStatus } from './status.js';

export interface IndexerOptions {
  pool: Pool;
  client: RpcClient;
  capabilities: NodeCapabilities;
  logger: Logger;
  firstBlock: bigint;
  /** Index exactly up to this block, then stop; null follows the head. */
  lastBlock: bigint | null;
  batchSize: number;
  concurrency: number;
  pollIntervalMs: number;
  /** How far back a reorg may reach before the indexer stops rather than guess. */
  maxReorgDepth: number;
  backoff?: Backoff;
}

export interface Indexer {
  status: IndexerStatus;
  /** Resolves once the blocks up to the head seen at start (or LAST_BLOCK) are indexed. */
  caughtUp: Promise<void>;
  /** Settles when the indexer ends: after lastBlock, on stop(), or on a fault it must not guess past. */
  done: Promise<void>;
  stop(): Promise<void>;
}

export class ReorgTooDeepError extends Error {
  override name = 'ReorgTooDeepError';
}

const defaultBackoff: Backoff = { initialMs: 250, maxMs: 15_000 };

export function startIndexer(options: IndexerOptions): Indexer {
  const controller = new AbortController();
  const status = initialStatus();
  let markCaughtUp!: () => void;
  const caughtUp = new Promise<void>((resolve) => (markCaughtUp = resolve));
  const done = run(options, status, controller.signal, markCaughtUp).then(
    () => {
      status.phase = controller.signal.aborted ? 'stopped' : 'done';
    },
    (error: unknown) => {
      status.phase = 'stopped';
      if (controller.signal.aborted) return;
      throw error;
    },
  );
  return {
    status,
    caughtUp,
    done,
    async stop() {
      controller.abort();
      await done.catch(() => undefined);
    },
  };
}

async function run(
  options: IndexerOptions,
  status: IndexerStatus,
  signal: AbortSignal,
  markCaughtUp: () => void,
): Promise<void> {
  const { logger } = options;
  const retry = <T>(what: string, task: () => Promise<T>) =>
    retryUntilDone(
      async () => {
        const result = await task();
        status.nodeAvailable = true;
        return result;
      },
      {
        backoff: options.backoff ?? defaultBackoff,
        signal,
        isFatal: (error) => error instanceof ReorgTooDeepError,
        onFailure(error, attempt) {
          status.nodeAvailable = false;
          status.lastError = `${what}: ${(error as Error).message}`;
          logger.warn({ attempt }, status.lastError);
        },
      },
    );
  const fetchBundles = (numbers: bigint[]) =>
    retry(`fetching blocks ${numbers[0]}..${numbers.at(-1)}`, async () =>
      (await fetchBlocks(options.client, options.capabilities, numbers)).map(decodeBlock),
    );
  const write = createSerialQueue();
  const store = (bundles: BlockBundle[]) =>
    write(() => retry('writing blocks', () => writeBlockBundles(options.pool, bundles))).then(() => {
      status.blocksIndexed += bundles.length;
    });

  const head = options.lastBlock ?? (await retry('reading the head', () => fetchHeadNumber(options.client)));
  status.head = head;
  status.phase = 'backfilling';
  await backfill(options, options.firstBlock, head, fetchBundles, store, signal);
  logger.info({ blocks: status.blocksIndexed }, `indexed blocks ${options.firstBlock} to ${head}`);
  markCaughtUp();
  if (options.lastBlock !== null) return;

  status.phase = 'following';
  while (!signal.aborted) {
    const latest = await retry('reading the head', () => fetchHeadNumber(options.client));
    status.head = latest;
    const indexed = (await highestIndexedBlock(options.pool)) ?? options.firstBlock - 1n;
    if (latest > indexed) {
      await retry('following the head', () => followTo(options, indexed, latest, fetchBundles, store));
    } else {
      await sleep(options.pollIntervalMs, undefined, { signal }).catch(() => undefined);
    }
  }
}

/** Indexes every block in [from, to] that the database lacks, several batches in flight at once. */
async function backfill(
  options: IndexerOptions,
  from: bigint,
  to: bigint,
  fetchBundles: (numbers: bigint[]) => Promise<BlockBundle[]>,
  store: (bundles: BlockBundle[]) => Promise<void>,
  signal: AbortSignal,
): Promise<void> {
  const batches = blockBatches(await findMissingRanges(options.pool, from, to), options.batchSize);
  const worker = async () => {
    for (let next = batches.next(); !next.done && !signal.aborted; next = batches.next()) {
      await store(await fetchBundles(next.value));
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
}

/**
 * Indexes the blocks after `indexed` up to `latest`, one batch at a time, checking that each batch
 * continues the stored chain; a block whose parent is not the stored block means a reorg.
 */
async function followTo(
  options: IndexerOptions,
  indexed: bigint,
  latest: bigint,
  fetchBundles: (numbers: bigint[]) => Promise<BlockBundle[]>,
  store: (bundles: BlockBundle[]) => Promise<void>,
): Promise<void> {
  const from = indexed + 1n;
  const to = latest - from + 1n > BigInt(options.batchSize) ? from + BigInt(options.batchSize) - 1n : latest;
  const bundles = await fetchBundles(range(from, to));
  const forkPoint = await findForkPoint(options, bundles, fetchBundles);
  if (forkPoint !== null) {
    const retracted = await retractBlocksFrom(options.pool, forkPoint);
    options.logger.warn(`reorg: ${retracted} block(s) from ${forkPoint} replaced by the node's chain`);
    return;
  }
  await store(bundles);
}

/** The lowest height whose stored block the node no longer has on its chain, or null if the batch continues ours. */
async function findForkPoint(
  options: IndexerOptions,
  bundles: BlockBundle[],
  fetchBundles: (numbers: bigint[]) => Promise<BlockBundle[]>,
): Promise<bigint | null> {
  const first = bundles[0];
  if (!first || first.block.number <= options.firstBlock) return null;
  for (let i = 1; i < bundles.length; i++) {
    if (bundles[i]!.block.parentHash !== bundles[i - 1]!.block.hash) {
      throw new Error(`the node changed its chain while answering (block ${bundles[i]!.block.number}); retrying`);
    }
  }
  let height = first.block.number - 1n;
  let expectedHash = first.block.parentHash;
  for (let depth = 0; height >= options.firstBlock; depth++, height--) {
    const stored = await consensusBlockHash(options.pool, height);
    if (stored === null || stored === expectedHash) return depth === 0 ? null : height + 1n;
    if (depth >= options.maxReorgDepth) {
      throw new ReorgTooDeepError(
        `a reorg deeper than ${options.maxReorgDepth} blocks replaced block ${height}; re-index from an earlier FIRST_BLOCK or raise the limit`,
      );
    }
    const [parent] = await fetchBundles([height]);
    expectedHash = parent!.block.parentHash;
  }
  return options.firstBlock;
}

function range(from: bigint, to: bigint): bigint[] {
  const numbers: bigint[] = [];
  for (let n = from; n <= to; n++) numbers.push(n);
  return numbers;
}
