import type { Pool } from 'pg';

/**
 * Takes the consensus blocks at and above a height off the canonical chain, in one transaction:
 * they stay as non-consensus rows (so that a lookup by number can say the block lost consensus),
 * and every row derived from them is removed.
 */
export async function retractBlocksFrom(pool: Pool, fromNumber: bigint): Promise<number> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const { rows } = await client.query<{ hash: Buffer }>(
      'UPDATE blocks SET consensus = false WHERE consensus AND number >= $1 RETURNING hash',
      [fromNumber.toString()],
    );
    const hashes = rows.map((r) => r.hash);
    await client.query('DELETE FROM transactions WHERE block_number >= $1', [fromNumber.toString()]);
    for (const table of ['withdrawals', 'token_transfers', 'internal_transactions', 'block_rewards']) {
      await client.query(`DELETE FROM ${table} WHERE block_hash = ANY($1::bytea[])`, [hashes]);
    }
    await client.query('COMMIT');
    return hashes.length;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
