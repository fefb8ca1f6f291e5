import { highestIndexedBlock, indexedHead } from '../index-progress.js';
import { planStableStatement } from './plan-stable.js';
import type { Db } from './sql.js';

/** The highest consensus block number indexed, null before the first block. */
export async function readIndexedHead(db: Db): Promise<number | null> {
  const head = await highestIndexedBlock(db);
  return head === null ? null : Number(head);
}

export interface ChainTiming {
  head: number | null;
  /** Mean block interval in milliseconds (see readChainTiming), null when no interval above 0 is known. */
  averageBlockTimeMs: number | null;
}

/** Blocks averaged over, and the newest blocks left out of the average, as Blockscout's AverageBlockTime. */
const timedBlocks = 100;
const skippedBlocks = 100;

const meanBlockTime = (offset: number) => `(
    SELECT round(avg(ms) FILTER (WHERE span > 0)) FROM (
      SELECT extract(epoch FROM lag(timestamp) OVER w - timestamp) * 1000 / nullif(lag(number) OVER w - number, 0) AS ms,
             lag(number) OVER w - number AS span
      FROM (SELECT number, timestamp FROM blocks WHERE consensus ORDER BY number DESC OFFSET ${offset} LIMIT ${timedBlocks}) s
      WINDOW w AS (ORDER BY timestamp DESC, number DESC)
    ) gaps)`;

const chainTimingStatement = planStableStatement(
  `SELECT ${indexedHead} AS head, ${meanBlockTime(skippedBlocks)} AS sampled, ${meanBlockTime(0)} AS newest`,
);

/**
 * Blockscout's average block time (AverageBlockTime): the 100 consensus blocks below the newest 100,
 * ordered by time, each interval between neighbours divided by the heights it spans, the mean of
 * those, rounded to a millisecond. Where that is not above 0 (a chain of fewer than 102 blocks, for
 * which Blockscout says 0, or blocks made within one second of each other), the newest 100 blocks
 * are averaged instead, so that a young chain has a block time; null when neither is above 0.
 */
export async function readChainTiming(db: Db): Promise<ChainTiming> {
  const { rows } = await db.query<{ head: string | null; sampled: string | null; newest: string | null }>(chainTimingStatement);
  const row = rows[0];
  const positive = (ms: string | null | undefined): number | null => (ms != null && Number(ms) > 0 ? Number(ms) : null);
  return {
    head: row?.head == null ? null : Number(row.head),
    averageBlockTimeMs: positive(row?.sampled) ?? positive(row?.newest),
  };
}
