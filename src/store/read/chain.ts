import { highestIndexedBlock, indexedHead } from '../index-progress.js';
import type { Db } from './sql.js';

/** The highest consensus block number indexed, null before the first block. */
export async function readIndexedHead(db: Db): Promise<number | null> {
  const head = await highestIndexedBlock(db);
  return head === null ? null : Number(head);
}

export interface ChainTiming {
  head: number | null;
  /**
   * Mean block interval in milliseconds over the 100 consensus blocks below the newest 100 (as
   * Blockscout averages it), null when fewer than two of those blocks are indexed.
   */
  averageBlockTimeMs: number | null;
}

export async function readChainTiming(db: Db): Promise<ChainTiming> {
  const { rows } = await db.query<{ head: string | null; average_ms: string | null }>(
    `WITH head AS (SELECT ${indexedHead} AS number),
          sample AS (
            SELECT b.number, b.timestamp FROM blocks b, head
            WHERE b.consensus AND b.number > head.number - 200 AND b.number <= head.number - 100
          )
     SELECT head.number AS head,
            (SELECT round(extract(epoch FROM max(timestamp) - min(timestamp)) * 1000
                          / nullif(max(number) - min(number), 0))
             FROM sample) AS average_ms
     FROM head`,
  );
  const row = rows[0];
  return {
    head: row?.head == null ? null : Number(row.head),
    averageBlockTimeMs: row?.average_ms == null ? null : Number(row.average_ms),
  };
}
