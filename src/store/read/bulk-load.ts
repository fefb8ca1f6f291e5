import type { Db } from './sql.js';

/** The phase of a bulk load of history and its switch to the normal indexed mode (migration 020). */
export type BulkLoadPhase = 'loading' | 'ledger' | 'indexes' | 'statistics';

export interface BulkLoadState {
  phase: BulkLoadPhase;
  firstBlock: bigint;
  lastBlock: bigint;
  /** The steps of the current phase already committed. */
  stepsDone: number;
  /** The steps of the current phase in all (the ledger's, the indexes to build, the one of statistics); null while loading. */
  stepsTotal: number | null;
}

/** The bulk load under way, or null when none is (the normal indexed mode). */
export async function readBulkLoad(db: Db): Promise<BulkLoadState | null> {
  const { rows } = await db.query<{
    phase: BulkLoadPhase;
    first_block: string;
    last_block: string;
    steps_done: number;
    ledger_steps_left: number;
    indexes_left: number;
  }>(
    `SELECT phase, first_block, last_block, steps_done,
       (SELECT count(*)::int FROM bulk_load_ledger_steps) AS ledger_steps_left,
       (SELECT count(*)::int FROM bulk_load_dropped_indexes) AS indexes_left
     FROM bulk_load`,
  );
  const row = rows[0];
  if (row === undefined) return null;
  const stepsLeft = { loading: null, ledger: row.ledger_steps_left, indexes: row.indexes_left, statistics: 1 - row.steps_done }[row.phase];
  const stepsTotal = stepsLeft === null ? null : row.steps_done + stepsLeft;
  return {
    phase: row.phase,
    firstBlock: BigInt(row.first_block),
    lastBlock: BigInt(row.last_block),
    stepsDone: row.steps_done,
    stepsTotal,
  };
}

/** Whether a bulk load is under way: its ledger and indexes are not built until it ends. */
export async function bulkLoadUnderWay(db: Db): Promise<boolean> {
  return (await db.query('SELECT 1 FROM bulk_load')).rowCount !== 0;
}

/** Whether a bulk load is in its switch (the ledger, the indexes, the statistics built): its loading is over. */
export async function bulkLoadSwitching(db: Db): Promise<boolean> {
  return (await db.query("SELECT 1 FROM bulk_load WHERE phase <> 'loading'")).rowCount !== 0;
}
