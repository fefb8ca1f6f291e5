import type { Pool, PoolClient } from 'pg';
import { inTransaction } from './transaction.js';

/**
 * The state of each outside source an indexer reads beside the chain (migration 050's
 * offchain_sources), which GET /health reports: a success is recorded with the data it stored, a
 * failure alone, so that the last values stay served.
 */

/** The outside sources whose state GET /health reports. */
export type OffchainSourceName = 'prices' | 'token_list' | 'address_tags';

/** The tables each source fills: emptied when the source is no longer configured. */
const tablesOfSource: Record<OffchainSourceName, readonly string[]> = {
  prices: ['coin_market', 'coin_market_history', 'token_market'],
  token_list: ['token_list_entries'],
  address_tags: ['address_tags'],
};

/** Inside the transaction that stored what the source gave: the source answered. */
export async function recordSourceSuccess(client: PoolClient, name: OffchainSourceName): Promise<void> {
  await client.query(
    `INSERT INTO offchain_sources (name, last_success_at, consecutive_failures) VALUES ($1, now(), 0)
     ON CONFLICT (name) DO UPDATE SET last_success_at = now(), consecutive_failures = 0`,
    [name],
  );
}

/** A failed fetch: the source's values stay, its failure is counted. */
export async function recordSourceFailure(pool: Pool, name: OffchainSourceName, error: string): Promise<void> {
  await pool.query(
    `INSERT INTO offchain_sources (name, last_failure_at, last_error, consecutive_failures) VALUES ($1, now(), $2, 1)
     ON CONFLICT (name) DO UPDATE SET last_failure_at = now(), last_error = $2,
       consecutive_failures = offchain_sources.consecutive_failures + 1`,
    [name, error],
  );
}

/** A source no longer configured: what it stored goes, so that its fields are null again. */
export async function forgetSource(pool: Pool, name: OffchainSourceName): Promise<void> {
  await inTransaction(pool, async (client) => {
    for (const table of tablesOfSource[name]) await client.query(`DELETE FROM ${table}`);
    await client.query('DELETE FROM offchain_sources WHERE name = $1', [name]);
  });
}
