import type { Pool } from 'pg';
import { unfinishedWork } from './database-snapshot.js';
import type { ScenarioChain } from './scenario-chain.js';
import { runUntilSettled } from './sextant-process.js';

/** How far below the head a test's bulk load stops: the last blocks are indexed as usual after it. */
export const BULK_LOAD_TEST_DISTANCE = 3;

/**
 * Sextant's settings for indexing `chain` into `databaseUrl` in batches of 2 blocks, one at a time,
 * with a bulk load of every block but the last few (`bulk`), or with none.
 */
export const bulkLoadEnv = (databaseUrl: string, chain: Omit<ScenarioChain, 'client'>, bulk: boolean): Record<string, string> => ({
  DATABASE_URL: databaseUrl,
  ETHEREUM_JSONRPC_HTTP_URL: chain.anvil.rpcUrl,
  LAST_BLOCK: chain.head.toString(),
  INDEXER_CATCHUP_BLOCKS_BATCH_SIZE: '2',
  INDEXER_CATCHUP_BLOCKS_CONCURRENCY: '1',
  INDEXER_POLL_INTERVAL_MS: '50',
  INDEXER_MAX_REORG_DEPTH: String(BULK_LOAD_TEST_DISTANCE - 1),
  INDEXER_BULK_LOAD_DISTANCE: String(BULK_LOAD_TEST_DISTANCE),
  INDEXER_BULK_LOAD_MIN_BLOCKS: bulk ? '1' : '0',
});

/** The bulk load under way in the database, or null (none, or no schema yet). */
export async function bulkLoadState(pool: Pool): Promise<{ phase: string; steps_done: number } | null> {
  const schema = await pool.query<{ present: boolean }>("SELECT to_regclass('bulk_load') IS NOT NULL AS present");
  if (!schema.rows[0]!.present) return null;
  const { rows } = await pool.query<{ phase: string; steps_done: number }>('SELECT phase, steps_done FROM bulk_load');
  return rows[0] ?? null;
}

/**
 * Runs `sextant start` with `env` until every stage is done and no bulk load is left under way, as
 * `pool` (the database itself, whatever way Sextant reaches it) sees it.
 */
export async function indexToTheEnd(pool: Pool, head: bigint, env: Record<string, string>): Promise<void> {
  await runUntilSettled(env, async () => {
    const left = await unfinishedWork(pool, head).catch(() => ['the schema']);
    return left.length > 0 || (await bulkLoadState(pool)) === null ? left : ['a bulk load under way'];
  });
}
