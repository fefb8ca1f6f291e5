import type { Pool } from 'pg';

/**
 * Writes the coin balances an indexer following the head would have read of the generated chain: one
 * row per address and block in which it sent, received (in a transaction or an internal transaction)
 * or mined, as the coin balance stage reads each address marked by a block at the next head; then each
 * address's latest as its current balance. The generated node keeps no balances, so each value is drawn
 * from the address and the block (up to about 1.15 × 10^21 wei). The number of rows written.
 */
export async function writeBenchCoinBalances(pool: Pool): Promise<number> {
  const { rowCount } = await pool.query(
    `INSERT INTO address_coin_balances (address, block_number, value)
     SELECT a, b, (('x' || substr(md5(a::text || b::text), 1, 15))::bit(60)::bigint)::numeric * 1000
     FROM (
       SELECT from_address, block_number FROM transactions
       UNION SELECT to_address, block_number FROM transactions WHERE to_address IS NOT NULL
       UNION SELECT from_address, block_number FROM internal_transactions
       UNION SELECT to_address, block_number FROM internal_transactions WHERE to_address IS NOT NULL
       UNION SELECT miner, number FROM blocks WHERE consensus
     ) parties(a, b)
     ON CONFLICT DO NOTHING`,
  );
  await pool.query(
    `INSERT INTO address_current_coin_balances (address, block_number, value)
     SELECT DISTINCT ON (address) address, block_number, value FROM address_coin_balances ORDER BY address, block_number DESC
     ON CONFLICT (address) DO UPDATE SET block_number = excluded.block_number, value = excluded.value`,
  );
  await pool.query('TRUNCATE coin_balance_marks');
  return rowCount ?? 0;
}
