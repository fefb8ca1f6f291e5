import type { Pool } from 'pg';
import type { LedgerStep } from './bulk-ledger.js';
import { dropSecondaryIndexes } from './bulk-indexes.js';
import type { BulkLoadPhase } from './read/bulk-load.js';
import { inTransaction } from './transaction.js';

/**
 * The bulk load's row (migration 020): each change of phase, and each step of the switch, commits with
 * the work it records, so that a restart resumes where the last commit left it.
 */

/** Begins a bulk load of blocks `first` to `last`: the row and the secondary indexes dropped, at once. */
export async function beginBulkLoad(pool: Pool, first: bigint, last: bigint): Promise<void> {
  await inTransaction(pool, async (client) => {
    await client.query(`INSERT INTO bulk_load (phase, first_block, last_block) VALUES ('loading', $1, $2)`, [
      first.toString(),
      last.toString(),
    ]);
    await dropSecondaryIndexes(client);
  });
}

export async function enterBulkLoadPhase(pool: Pool, phase: BulkLoadPhase): Promise<void> {
  await pool.query('UPDATE bulk_load SET phase = $1, steps_done = 0', [phase]);
}

/** Runs one step of the ledger and counts it, in one transaction. */
export async function runLedgerStep(pool: Pool, step: LedgerStep): Promise<void> {
  await inTransaction(pool, async (client) => {
    await step.run(client);
    await client.query('UPDATE bulk_load SET steps_done = steps_done + 1');
  });
}

/** Gathers the planner's statistics over the loaded tables and ends the bulk load, in one transaction. */
export async function finishBulkLoad(pool: Pool): Promise<void> {
  await inTransaction(pool, async (client) => {
    await client.query('ANALYZE');
    await client.query('DELETE FROM bulk_load');
  });
}
