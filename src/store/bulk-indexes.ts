import type { Pool, PoolClient } from 'pg';
import { inTransaction } from './transaction.js';

/**
 * The tables a bulk load fills, by COPY (the chain's rows) or in bulk afterwards (the ledger): their
 * secondary indexes are dropped for the load and built once, after it. Blocks keep theirs: one row a
 * block costs little upkeep, and the load reads them to find the blocks still missing.
 */
const BULK_LOADED_TABLES = [
  'transactions',
  'transaction_authorizations',
  'withdrawals',
  'token_transfers',
  'logs',
  'internal_transactions',
  'block_rewards',
  'tokens',
  'token_instances',
  'address_token_balances',
  'address_counters',
  'address_coin_balances',
] as const;

/**
 * Kept through the load, small and partial: the token metadata stage finds by them the tokens to read
 * while the load writes them, so that the ledger's balances take the tokens' names when the switch
 * builds them rather than each name being written into every balance row afterwards.
 */
const KEPT_INDEXES = ['tokens_metadata_pending', 'tokens_supply_pending'] as const;

/**
 * Inside the transaction that begins a bulk load: drops the secondary indexes of the bulk-loaded tables,
 * recording how to build each again. Primary keys and unique constraints stay: a batch written twice
 * after a crash fails on them rather than doubling rows, and the ledger's upserts need them. Returns the
 * names dropped.
 */
export async function dropSecondaryIndexes(client: PoolClient): Promise<string[]> {
  const { rows } = await client.query<{ name: string; definition: string }>(
    `INSERT INTO bulk_load_dropped_indexes (name, definition)
       SELECT i.relname, pg_get_indexdef(i.oid)
       FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
       WHERE t.relnamespace = 'public'::regnamespace AND t.relname = ANY($1::text[])
         AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = x.indexrelid)
         AND i.relname <> ALL($2::text[])
       RETURNING name, definition`,
    [BULK_LOADED_TABLES, KEPT_INDEXES],
  );
  for (const { name } of rows) await client.query(`DROP INDEX ${quoteIdentifier(name)}`);
  return rows.map((r) => r.name).sort();
}

/**
 * The indexes a bulk load dropped that are not built again yet, those of the largest tables first: when
 * several are built at once, the longest builds start first rather than last.
 */
export async function indexesToBuild(pool: Pool): Promise<string[]> {
  const { rows } = await pool.query<{ name: string }>(
    `SELECT name FROM bulk_load_dropped_indexes
     ORDER BY pg_relation_size(substring(definition FROM ' ON (\\S+) USING ')::regclass) DESC, name`,
  );
  return rows.map((r) => r.name);
}

/**
 * Builds one dropped index again and forgets it, counting the step of the bulk load's switch, in one
 * transaction: after a crash the index is either built and forgotten or neither. A build sorts the
 * whole table: `maintenanceWorkMem` (PostgreSQL's maintenance_work_mem, for this transaction only)
 * lets it sort in memory rather than in temporary files.
 */
export async function buildDroppedIndex(pool: Pool, name: string, maintenanceWorkMem: string): Promise<void> {
  await inTransaction(pool, async (client) => {
    const { rows } = await client.query<{ definition: string }>(
      'DELETE FROM bulk_load_dropped_indexes WHERE name = $1 RETURNING definition',
      [name],
    );
    const definition = rows[0]?.definition;
    if (definition === undefined) return;
    await client.query(`SELECT set_config('maintenance_work_mem', $1, true)`, [maintenanceWorkMem]);
    await client.query(definition);
    await client.query('UPDATE bulk_load SET steps_done = steps_done + 1');
  });
}

const quoteIdentifier = (name: string): string => `"${name.replaceAll('"', '""')}"`;
