-- A transaction's token transfers in the order its pages list them (log_index, batch_index descending;
-- its transfers share its block number), and ascending for the first ten its detail shows: both are
-- one range of this index.
CREATE INDEX token_transfers_transaction_order ON token_transfers (transaction_hash, log_index DESC, batch_index DESC);
