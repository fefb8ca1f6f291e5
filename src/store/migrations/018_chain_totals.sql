-- The home page's totals, kept with the block writes and retractions rather than counted per request:
-- consensus blocks, their transactions and gas used, and the addresses the address counters count
-- something for (a transaction, a token transfer or a mined block; a row left at zero by a retraction
-- is not one). One row, which the writer upserts, so that a truncation leaves nothing to recreate.
CREATE TABLE chain_totals (
  id           boolean PRIMARY KEY DEFAULT true CHECK (id),
  blocks       bigint  NOT NULL,
  transactions bigint  NOT NULL,
  gas_used     numeric NOT NULL,
  addresses    bigint  NOT NULL
);

-- The rows already indexed.
INSERT INTO chain_totals (blocks, transactions, gas_used, addresses)
SELECT (SELECT count(*) FROM blocks WHERE consensus),
       (SELECT coalesce(sum(transactions_count), 0) FROM blocks WHERE consensus),
       (SELECT coalesce(sum(gas_used), 0) FROM blocks WHERE consensus),
       (SELECT count(*) FROM address_counters WHERE transactions_count <> 0 OR token_transfers_count <> 0 OR validations_count <> 0);

-- The blocks of a span of time (transactions today, the last 24 hours' fees): one range of this index.
CREATE INDEX blocks_consensus_timestamp ON blocks (timestamp, number) WHERE consensus;
