-- The charts' figures per UTC day of the consensus chain, kept with the block writes, the trace writes
-- and the retractions rather than counted per request (see daily-figures.ts for each figure's rule).
-- A day with no consensus block has no row.
CREATE TABLE daily_figures (
  day             date    PRIMARY KEY,
  blocks          bigint  NOT NULL,
  transactions    bigint  NOT NULL,
  gas_used        numeric NOT NULL,
  -- The day's blocks whose parent is indexed, and the seconds between each and its parent: the day's
  -- average block time is their quotient.
  block_intervals bigint  NOT NULL,
  block_seconds   bigint  NOT NULL,
  -- Distinct senders of the day's transactions: the rows of daily_senders of the day.
  active_accounts bigint  NOT NULL,
  new_contracts   bigint  NOT NULL,
  token_transfers bigint  NOT NULL
);

-- Who sent transactions on a day, and how many: a distinct count cannot be summed over batches, and a
-- retraction must know whether a sender's last transaction of the day went.
CREATE TABLE daily_senders (
  day          date   NOT NULL,
  address      bytea  NOT NULL,
  transactions bigint NOT NULL,
  PRIMARY KEY (day, address)
);

-- The rows already indexed.
INSERT INTO daily_senders (day, address, transactions)
SELECT (block_timestamp AT TIME ZONE 'UTC')::date, from_address, count(*) FROM transactions GROUP BY 1, 2;

INSERT INTO daily_figures (day, blocks, transactions, gas_used, block_intervals, block_seconds, active_accounts, new_contracts, token_transfers)
SELECT day, sum(blocks), sum(transactions), sum(gas_used), sum(block_intervals), sum(block_seconds), sum(active_accounts),
       sum(new_contracts), sum(token_transfers)
FROM (
  SELECT (timestamp AT TIME ZONE 'UTC')::date AS day, count(*) AS blocks, sum(transactions_count) AS transactions, sum(gas_used) AS gas_used,
         0 AS block_intervals, 0 AS block_seconds, 0 AS active_accounts, 0 AS new_contracts, 0 AS token_transfers
  FROM blocks WHERE consensus GROUP BY 1
  UNION ALL
  SELECT (c.timestamp AT TIME ZONE 'UTC')::date, 0, 0, 0, count(*), sum(extract(epoch FROM c.timestamp - p.timestamp)), 0, 0, 0
  FROM blocks c JOIN blocks p ON p.hash = c.parent_hash AND p.consensus WHERE c.consensus GROUP BY 1
  UNION ALL
  SELECT day, 0, 0, 0, 0, 0, count(*), 0, 0 FROM daily_senders GROUP BY 1
  UNION ALL
  SELECT (block_timestamp AT TIME ZONE 'UTC')::date, 0, 0, 0, 0, 0, 0, count(*), 0
  FROM transactions WHERE created_contract IS NOT NULL AND status IS DISTINCT FROM 0 GROUP BY 1
  UNION ALL
  SELECT (b.timestamp AT TIME ZONE 'UTC')::date, 0, 0, 0, 0, 0, 0, count(*), 0
  FROM internal_transactions i JOIN blocks b ON b.hash = i.block_hash
  WHERE i.index > 0 AND i.created_contract IS NOT NULL AND i.error IS NULL GROUP BY 1
  UNION ALL
  SELECT (b.timestamp AT TIME ZONE 'UTC')::date, 0, 0, 0, 0, 0, 0, 0, count(DISTINCT (t.block_hash, t.log_index))
  FROM token_transfers t JOIN blocks b ON b.hash = t.block_hash GROUP BY 1
) s
GROUP BY day
HAVING sum(blocks) > 0;
