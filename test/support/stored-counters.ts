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

/** daily_figures' columns the check compares, in order. */
const dailyColumns = [
  'blocks',
  'transactions',
  'gas_used',
  'block_intervals',
  'block_seconds',
  'active_accounts',
  'new_contracts',
  'token_transfers',
  'successful_transactions',
  'native_transfers',
  'transaction_fees',
  'priced_transactions',
  'gas_prices',
  'gas_limit',
  'sized_blocks',
  'block_size',
  'new_accounts',
];

/**
 * The days whose stored daily_figures (or daily_senders, account_first_days, daily_verified_contracts)
 * differ from a GROUP BY over the indexed rows of the consensus chain (and the verified contracts), as `day stored counted`: block intervals from
 * neighbouring consensus heights whose parent hash links, senders counted distinct, transfers by log, an
 * account new on the day of its first transaction. Empty when the writers kept every figure.
 */
export async function dailyFigureMismatches(pool: Pool): Promise<string[]> {
  const row = (alias: string) => `row(${dailyColumns.map((c) => `${alias}.${c}`).join(', ')})`;
  const { rows } = await pool.query<{ row: string }>(
    `WITH consensus AS (
       SELECT hash, timestamp, transactions_count, gas_used, gas_limit, size, transaction_fees, (timestamp AT TIME ZONE 'UTC')::date AS day,
              lag(hash) OVER (ORDER BY number) AS previous_hash, lag(number) OVER (ORDER BY number) AS previous_number,
              lag(timestamp) OVER (ORDER BY number) AS previous_timestamp, parent_hash, number
       FROM blocks WHERE consensus
     ),
     mined AS (SELECT c.day, t.* FROM transactions t JOIN consensus c ON c.hash = t.block_hash),
     first_days AS (SELECT from_address AS address, min(day) AS day FROM mined GROUP BY 1),
     counted AS (
       SELECT b.day, count(*) AS blocks, sum(b.transactions_count) AS transactions, sum(b.gas_used) AS gas_used,
              count(*) FILTER (WHERE b.previous_hash = b.parent_hash AND b.previous_number = b.number - 1) AS block_intervals,
              coalesce(sum(extract(epoch FROM b.timestamp - b.previous_timestamp))
                FILTER (WHERE b.previous_hash = b.parent_hash AND b.previous_number = b.number - 1), 0) AS block_seconds,
              (SELECT count(DISTINCT t.from_address) FROM mined t WHERE t.day = b.day) AS active_accounts,
              (SELECT count(*) FROM mined t WHERE t.day = b.day AND t.created_contract IS NOT NULL AND t.status IS DISTINCT FROM 0)
              + (SELECT count(*) FROM internal_transactions i JOIN consensus c ON c.hash = i.block_hash
                  WHERE c.day = b.day AND i.index > 0 AND i.created_contract IS NOT NULL AND i.error IS NULL) AS new_contracts,
              (SELECT count(*) FROM (SELECT DISTINCT t.block_hash, t.log_index FROM token_transfers t JOIN consensus c ON c.hash = t.block_hash
                WHERE c.day = b.day) l) AS token_transfers,
              (SELECT count(*) FROM mined t WHERE t.day = b.day AND t.status IS DISTINCT FROM 0) AS successful_transactions,
              (SELECT count(*) FROM mined t WHERE t.day = b.day AND t.input = '\\x'::bytea) AS native_transfers,
              (SELECT coalesce(sum(t.gas_used * t.gas_price), 0) FROM mined t WHERE t.day = b.day) AS transaction_fees,
              (SELECT count(*) FROM mined t WHERE t.day = b.day AND t.gas_price IS NOT NULL) AS priced_transactions,
              (SELECT coalesce(sum(t.gas_price), 0) FROM mined t WHERE t.day = b.day) AS gas_prices,
              sum(b.gas_limit) AS gas_limit, count(b.size) AS sized_blocks, coalesce(sum(b.size), 0) AS block_size,
              (SELECT count(*) FROM first_days a WHERE a.day = b.day) AS new_accounts
       FROM consensus b GROUP BY b.day
     ),
     senders AS (SELECT day, from_address AS address, count(*) AS transactions FROM mined GROUP BY 1, 2)
     SELECT concat_ws(' ', day, coalesce(${row('f')}::text, 'none'), coalesce(${row('c')}::text, 'none')) AS row
     FROM daily_figures f FULL JOIN counted c USING (day)
     WHERE ${row('f')} IS DISTINCT FROM ${row('c')}
     UNION ALL
     SELECT concat_ws(' ', day, 'sender', encode(address, 'hex'), coalesce(d.transactions::text, 'none'), coalesce(s.transactions::text, 'none'))
     FROM daily_senders d FULL JOIN senders s USING (day, address)
     WHERE d.transactions IS DISTINCT FROM s.transactions
     UNION ALL
     SELECT concat_ws(' ', coalesce(a.day, s.day), 'first', encode(address, 'hex'), coalesce(a.day::text, 'none'), coalesce(s.day::text, 'none'))
     FROM account_first_days a FULL JOIN first_days s USING (address)
     WHERE a.day IS DISTINCT FROM s.day
     UNION ALL
     SELECT concat_ws(' ', day, 'verified', coalesce(d.contracts::text, 'none'), coalesce(v.contracts::text, 'none'))
     FROM daily_verified_contracts d
     FULL JOIN (SELECT (verified_at AT TIME ZONE 'UTC')::date AS day, count(*) AS contracts FROM verified_contracts GROUP BY 1) v USING (day)
     WHERE d.contracts IS DISTINCT FROM v.contracts
     ORDER BY 1`,
  );
  return rows.map((r) => r.row);
}
