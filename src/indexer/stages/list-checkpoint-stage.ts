import type { Pool } from 'pg';
import { findListScanWindow, writeListCheckpoints } from '../../store/list-checkpoints.js';
import { type BackgroundLoop, type BackgroundLoopOptions, startBackgroundLoop } from './background-loop.js';

export interface ListCheckpointStageOptions extends BackgroundLoopOptions {
  pool: Pool;
  /** Blocks scanned at once, at most. */
  scanBlocks: number;
  /**
   * A run shorter than scanBlocks waits this long after the last scan, so that while the indexer
   * catches up each scan takes many blocks: part of a scan's cost is per busy list it extends.
   */
  restMs: number;
  /** Every how many rows of a list a checkpoint is kept (LIST_CHECKPOINT_INTERVAL but in tests). */
  interval?: number;
}

/**
 * Keeps the checkpoints of the busy addresses' Etherscan-style account lists (txlist, tokentx,
 * tokennfttx, token1155tx), beside the block pipeline, which never waits for it: each step scans the
 * next run of indexed blocks and numbers, for each busy address they concern, the rows they add, on
 * from each list's tail.
 */
export function startListCheckpointStage(options: ListCheckpointStageOptions): BackgroundLoop {
  const { pool, logger } = options;
  let lastScan = -Infinity;
  return startBackgroundLoop(options, async (retry) => {
    const window = await retry('finding blocks to scan for list checkpoints', () => findListScanWindow(pool, options.scanBlocks));
    if (window === null) return false;
    if (window.to - window.after < BigInt(options.scanBlocks) && performance.now() - lastScan < options.restMs) return false;
    lastScan = performance.now();
    const written = await retry('writing list checkpoints', () => writeListCheckpoints(pool, window, options.interval));
    logger.debug(written ? `list checkpoints up to block ${window.to}` : `block ${window.to} lost consensus; scanned again`);
    return true;
  });
}
