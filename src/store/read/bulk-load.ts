import type { Db } from './sql.js';

/** The phase of a bulk load of history and its switch to the normal indexed mode (migration 020). */
export type BulkLoadPhase = 'loading' | 'ledger' | 'indexes' | 'statistics';

export interface BulkLoadState {
  phase: BulkLoadPhase;
  firstBlock: bigint;
  lastBlock: bigint;
  /** The steps of the current phase already committed. */
  stepsDone: number;
}

/** The bulk load under way, or null when none is (the normal indexed mode). */
export async function readBulkLoad(db: Db): Promise<BulkLoadState | null> {
  const { rows } = await db.query<{ phase: BulkLoadPhase; first_block: string; last_block: string; steps_done: number }>(
    'SELECT phase, first_block, last_block, steps_done FROM bulk_load',
  );
  const row = rows[0];
  return row === undefined
    ? null
    : { phase: row.phase, firstBlock: BigInt(row.first_block), lastBlock: BigInt(row.last_block), stepsDone: row.steps_done };
}
