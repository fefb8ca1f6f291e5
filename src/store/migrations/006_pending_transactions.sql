-- E2 filter=pending lists pool transactions by (inserted_at, hash) descending: the keyset index
-- follows that order, so that a page deep in the list costs what the first one costs.
DROP INDEX pending_transactions_order;
CREATE INDEX pending_transactions_order ON pending_transactions (inserted_at DESC, hash DESC);
