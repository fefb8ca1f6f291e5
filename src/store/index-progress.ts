import type { Pool } from 'pg';
import type { Hex } from '../model.js';
import { byteaFromHex, hexFromBytea } from './encode.js';
import type { Db } from './read/sql.js';

/** The highest consensus block number (null on an empty database), as a scalar subquery. */
export const indexedHead = '(SELECT max(number) FROM blocks WHERE consensus)';

export interface BlockRange {
  from: bigint;
  to: bigint;
}

/** The ranges within [first, last] that have no consensus block yet, in ascending order. */
export async function findMissingRanges(pool: Pool, first: bigint, last: bigint): Promise<BlockRange[]> {
  if (last < first) return [];
  const { rows } = await pool.query<{ gap_from: string; gap_to: string }>(
    `WITH present AS (
       SELECT number FROM blocks WHERE consensus AND number BETWEEN $1 AND $2
     ), bounded AS (
       SELECT $1::bigint - 1 AS number UNION ALL SELECT number FROM present UNION ALL SELECT $2::bigint + 1
     ), gaps AS (
       SELECT number + 1 AS gap_from, lead(number) OVER (ORDER BY number) - 1 AS gap_to FROM bounded
     )
     SELECT gap_from::text, gap_to::text FROM gaps WHERE gap_to >= gap_from ORDER BY gap_from`,
    [first.toString(), last.toString()],
  );
  return rows.map((r) => ({ from: BigInt(r.gap_from), to: BigInt(r.gap_to) }));
}

/** The hash of the consensus block at a height, or null. */
export async function consensusBlockHash(pool: Pool, number: bigint): Promise<Hex | null> {
  const { rows } = await pool.query<{ hash: Buffer }>('SELECT hash FROM blocks WHERE consensus AND number = $1', [number.toString()]);
  return rows[0] ? hexFromBytea(rows[0].hash) : null;
}

/** The highest consensus block number, or null on an empty database. */
export async function highestIndexedBlock(db: Db): Promise<bigint | null> {
  const { rows } = await db.query<{ number: string | null }>(`SELECT ${indexedHead}::text AS number`);
  return rows[0]?.number == null ? null : BigInt(rows[0].number);
}

/**
 * The lowest consensus block in [first, last] whose parent hash is not the hash of the consensus
 * block below it (both present), or null when every stored neighbour pair links up.
 */
export async function findBrokenLink(pool: Pool, first: bigint, last: bigint): Promise<bigint | null> {
  const { rows } = await pool.query<{ number: string }>(
    `SELECT b.number::text
       FROM blocks b JOIN blocks p ON p.consensus AND p.number = b.number - 1
      WHERE b.consensus AND b.number BETWEEN $1 AND $2 AND p.hash <> b.parent_hash
      ORDER BY b.number
      LIMIT 1`,
    [first.toString(), last.toString()],
  );
  return rows[0] ? BigInt(rows[0].number) : null;
}

/** Whether the block of `hash` is stored, whatever its consensus. */
export async function isBlockStored(pool: Pool, hash: Hex): Promise<boolean> {
  return (await pool.query('SELECT 1 FROM blocks WHERE hash = $1', [byteaFromHex(hash)])).rowCount !== 0;
}
