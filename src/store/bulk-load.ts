import type { Pool } from 'pg';
import { type LedgerStep, ledgerSteps } from './bulk-ledger.js';
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

/** Enters `phase`; entering the ledger phase lists its steps, each forgotten once it is done. */
export async function enterBulkLoadPhase(pool: Pool, phase: BulkLoadPhase): Promise<void> {
  await inTransaction(pool, async (client) => {
    await client.query('UPDATE bulk_load SET phase = $1, steps_done = 0', [phase]);
    if (phase === 'ledger') {
      await client.query('INSERT INTO bulk_load_ledger_steps (name) SELECT unnest($1::text[]) ON CONFLICT DO NOTHING', [
        ledgerSteps.map((step) => step.name),
      ]);
    }
  });
}

/** The ledger's steps still to run, in the order of `ledgerSteps`. */
export async function ledgerStepsLeft(pool: Pool): Promise<LedgerStep[]> {
  const { rows } = await pool.query<{ name: string }>('SELECT name FROM bulk_load_ledger_steps');
  const left = new Set(rows.map((row) => row.name));
  return ledgerSteps.filter((step) => left.has(step.name));
}

/**
 * Runs one step of the ledger, forgets it and counts it, in one transaction, with `workMem` (PostgreSQL's
 * work_mem, for this transaction only) for its sorts and hash tables over whole tables.
 */
export async function runLedgerStep(pool: Pool, step: LedgerStep, workMem: string): Promise<void> {
  await inTransaction(pool, async (client) => {
    const { rowCount } = await client.query('DELETE FROM bulk_load_ledger_steps WHERE name = $1', [step.name]);
    if (rowCount === 0) return;
    await client.query(`SELECT set_config('work_mem', $1, true)`, [workMem]);
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
