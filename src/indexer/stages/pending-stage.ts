import type { Pool } from 'pg';
import type { RpcClient } from '../../chain/rpc.js';
import { fetchTxpool } from '../../chain/txpool.js';
import { replacePendingTransactions } from '../../store/pending-transactions.js';
import { type BackgroundLoop, type BackgroundLoopOptions, startBackgroundLoop } from './background-loop.js';
import type { Retry } from '../retry.js';

export interface PendingStageOptions extends BackgroundLoopOptions {
  pool: Pool;
  client: RpcClient;
}

/**
 * Keeps the pending transaction list a copy of the node's pool (`txpool_content`), read every
 * pollIntervalMs beside the block pipeline: a transaction is listed from the poll that first sees it
 * until one that no longer does (mined, replaced or dropped). A node without txpool_content turns
 * the stage off, with the list empty.
 */
export function startPendingStage(options: PendingStageOptions): BackgroundLoop {
  const { pool, client, logger } = options;
  let poolServed = true;
  // A node that keeps one malformed entry in its pool is told about once, not at every poll.
  let reported = new Set<string>();

  const copyPool = async (retry: Retry): Promise<void> => {
    const content = await retry("reading the node's txpool", () => fetchTxpool(client));
    if (content === null) {
      logger.info('the node does not serve txpool_content: pending transactions are not listed');
      poolServed = false;
      // What an earlier node's pool left there can no longer be followed to its end.
      await retry('clearing pending transactions', () => replacePendingTransactions(pool, []));
      return;
    }
    const problems = new Set(content.malformed.map((error) => error.message));
    for (const problem of problems) if (!reported.has(problem)) logger.warn(`pool entry left out: ${problem}`);
    reported = problems;
    const changes = await retry('saving pending transactions', () => replacePendingTransactions(pool, content.transactions));
    if (changes.added > 0 || changes.removed > 0) {
      logger.debug(`pending transactions: ${changes.added} new, ${changes.removed} gone`);
    }
  };

  return startBackgroundLoop(options, async (retry) => {
    if (poolServed) await copyPool(retry);
    return false;
  });
}
