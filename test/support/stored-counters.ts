import type { Pool } from 'pg';

/**
 * The NFT ids whose stored transfers_count is not the number of transfer logs that mention them in
 * token_transfers (an instance row without transfers, or transfers without an instance row, included),
 * as `token id stored counted`. Empty when the token ledger kept every count.
 */
export async function instanceTransferCountMismatches(pool: Pool): Promise<string[]> {
  const { rows } = await pool.query<{ row: string }>(
    `SELECT concat_ws(' ', '0x' || encode(token_address, 'hex'), token_id, coalesce(ti.transfers_count::text, 'none'), coalesce(c.n, 0)) AS row
       FROM token_instances ti
       FULL JOIN (SELECT token_address, token_id, count(DISTINCT (block_hash, log_index)) AS n
                    FROM token_transfers WHERE token_id IS NOT NULL GROUP BY token_address, token_id) c USING (token_address, token_id)
      WHERE ti.transfers_count IS DISTINCT FROM c.n
      ORDER BY 1`,
  );
  return rows.map((r) => r.row);
}
