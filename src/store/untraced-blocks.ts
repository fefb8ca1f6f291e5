import type { Pool } from 'pg';
import type { UntracedBlock } from '../model.js';
import { hexFromBytea } from './encode.js';

/** The lowest consensus blocks not traced yet, with their transaction hashes in block order. */
export async function findUntracedBlocks(pool: Pool, limit: number): Promise<UntracedBlock[]> {
  const { rows } = await pool.query<{ hash: Buffer; number: string; transaction_hashes: Buffer[] }>(
    `SELECT b.hash, b.number::text,
            ARRAY(SELECT t.hash FROM transactions t WHERE t.block_number = b.number AND t.block_hash = b.hash ORDER BY t.index) AS transaction_hashes
       FROM blocks b
      WHERE b.consensus AND b.traced_at IS NULL
      ORDER BY b.number
      LIMIT $1`,
    [limit],
  );
  return rows.map((r) => ({
    hash: hexFromBytea(r.hash),
    number: BigInt(r.number),
    transactionHashes: r.transaction_hashes.map(hexFromBytea),
  }));
}
