-- Indexes keyed by a transaction hash take each new row at a random place, so that, as the tables
-- grow, every batch of blocks writes pages all over them. E6 finds a transaction's frames through
-- the primary key (block hash, transaction index) instead, and E2's token transfer probe through
-- the block position, whose index grows at its end like the chain.
DROP INDEX internal_transactions_transaction;
DROP INDEX token_transfers_transaction;
CREATE INDEX token_transfers_position ON token_transfers (block_number, transaction_index);
-- The trace stage now writes the outcome of failed transactions only (see writeOutcomes).
COMMENT ON COLUMN transactions.has_error_in_internal_transactions IS
  'true when a frame below the top level failed; null before the block is traced and, once it is, for no error';
