import type { Pool } from 'pg';
import { ensEventParties, ensEventTopics, readPrimaryNames } from '../../chain/ens.js';
import type { RpcClient } from '../../chain/rpc.js';
import type { Address } from '../../model.js';
import { findIndexedHead } from '../../store/coin-balances.js';
import { findEnsLogs, findEnsMarks, findEnsScanWindow, markEnsRechecks, markEnsWindow, saveEnsNames } from '../../store/ens-names.js';
import { type BackgroundLoop, type BackgroundLoopOptions, startBackgroundLoop } from './background-loop.js';

export interface EnsStageOptions extends BackgroundLoopOptions {
  pool: Pool;
  client: RpcClient;
  /** The ENS registry (or a compatible one) names are read from. */
  registry: Address;
  /** The first block indexed: the scan begins there. */
  firstBlock: bigint;
  /** Addresses checked at once (one read of four batches, one save). */
  batchSize: number;
  /** Blocks scanned at once for new addresses and ENS events. */
  scanBlocks: number;
  /** A claimed name checked longer ago than this is checked again. */
  recheckAfterMs: number;
  /** Whether blocks are traced: the scan then waits for a block's trace, so that its internal transactions' parties are marked too. */
  tracedBlocks: boolean;
}

const topics = Object.values(ensEventTopics);

/**
 * Keeps the primary ENS names of the chain's addresses, beside the block pipeline, which never waits
 * for it. Each step does the first of: check the marked addresses at the indexed head; scan the next
 * run of indexed (and, where blocks are traced, traced) blocks, marking the addresses they show never
 * checked and those their ENS events concern; mark the names checked longest ago, past `recheckAfterMs`.
 */
export function startEnsStage(options: EnsStageOptions): BackgroundLoop {
  const { pool, client, logger, registry, batchSize } = options;
  return startBackgroundLoop(options, async (retry) => {
    const marks = await retry('finding addresses to read ENS names of', () => findEnsMarks(pool, batchSize));
    if (marks.length > 0) {
      // The head is read again on each attempt, as the proxy stage does.
      const read = await retry('reading ENS names', async () => {
        const head = await findIndexedHead(pool);
        if (head === null) return null;
        const records = await readPrimaryNames(
          client,
          registry,
          marks.map((m) => m.address),
          head.number,
        );
        return { head, records };
      });
      if (read === null) return false;
      const { head, records } = read;
      const checked = marks.map((mark, i) => Object.assign({}, mark, { record: records[i]! }));
      const saved = await retry('saving ENS names', () => saveEnsNames(pool, head, checked));
      logger.debug(
        saved
          ? `read the ENS names of ${marks.length} addresses at block ${head.number}`
          : `block ${head.number} lost consensus; ENS names read again`,
      );
      return true;
    }
    const window = await retry('finding blocks to scan for ENS', () =>
      findEnsScanWindow(pool, options.firstBlock, options.scanBlocks, options.tracedBlocks),
    );
    if (window !== null) {
      const logs = await retry('reading ENS events', () => findEnsLogs(pool, window, topics));
      await retry('marking addresses for ENS names', () => markEnsWindow(pool, window, ensEventParties(logs)));
      return true;
    }
    const rechecks = await retry('marking ENS names to check again', () => markEnsRechecks(pool, options.recheckAfterMs, batchSize));
    return rechecks > 0;
  });
}
