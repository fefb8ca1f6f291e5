import type { Pool } from 'pg';
import type { Logger } from 'pino';
import { type BulkLoadState, readBulkLoad } from '../store/read/bulk-load.js';

/** How often the bulk load's row is read again: a phase lasts minutes, and each read is one row. */
const WATCH_INTERVAL_MS = 2_000;

export interface BulkLoadWatch {
  /** The bulk load under way as last read; null when none is. */
  current(): BulkLoadState | null;
  stop(): void;
}

/**
 * Reads the bulk load's row (migration 020) now and then every `intervalMs`, apart from the API's
 * requests and on the indexer's pool, not the API's, so that no request waits on it. A read that fails keeps the
 * state last read.
 */
export async function watchBulkLoad(pool: Pool, logger: Logger, intervalMs = WATCH_INTERVAL_MS): Promise<BulkLoadWatch> {
  let state: BulkLoadState | null = null;
  const read = async () => {
    try {
      state = await readBulkLoad(pool);
    } catch (error) {
      logger.debug(`reading the bulk load's phase: ${(error as Error).message}`);
    }
  };
  await read();
  let reading = false;
  const timer = setInterval(() => {
    if (reading) return;
    reading = true;
    void read().finally(() => (reading = false));
  }, intervalMs);
  timer.unref();
  return { current: () => state, stop: () => clearInterval(timer) };
}
