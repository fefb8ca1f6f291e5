-- The chain-wide lists of Blockscout's frontend: tokens (/tokens), top accounts (/accounts), token
-- transfers, internal transactions and withdrawals. Each page is one or a few ranges of an index in
-- the list's order, however deep, so that page 10,000 costs what page 1 costs.

-- GET /api/v2/tokens: most holders first, then by name (unnamed last), then by address, one token type
-- at a time (the list reads each type's range and merges them, so that a type filter is a range too).
-- Updates of holders_count now change an indexed column and so cannot be heap-only: an entry in each
-- index of tokens per token a batch of blocks touches, for a list that otherwise sorts every token per page.
CREATE INDEX tokens_rank ON tokens (type, holders_count DESC, name ASC NULLS LAST, address);
-- The same list fewest holders first (Blockscout's sort=holders_count&order=asc): names and addresses
-- still ascending, which the index above read backwards does not give.
CREATE INDEX tokens_rank_fewest_holders ON tokens (type, holders_count, name ASC NULLS LAST, address);

-- GET /api/v2/token-transfers: newest first, one token type at a time as above (a type filter is
-- common: the frontend's tabs). It grows at four places, one per type, as the chain does.
CREATE INDEX token_transfers_type_position ON token_transfers (token_type, block_number DESC, log_index DESC, batch_index DESC);

-- GET /api/v2/internal-transactions: newest first, the top-level call of each transaction left out as
-- every internal transaction list leaves it out (the predicate the list's query repeats). It grows at
-- its end, as the chain does.
CREATE INDEX internal_transactions_position ON internal_transactions (block_number DESC, transaction_index DESC, index DESC)
  WHERE type <> 'call' OR index > 0;

-- GET /api/v2/withdrawals: highest index first (withdrawal indexes rise with the chain).
CREATE INDEX withdrawals_index ON withdrawals (index DESC);

-- GET /api/v2/addresses: each address's latest coin balance read, kept by the coin balance stage with
-- each read it stores and by a retraction with the rows it deletes (the history's latest row for each
-- address, or none), so that the richest addresses are one range of an index rather than the latest
-- row of every address's history found and sorted per page. Zero balances are not listed.
CREATE TABLE address_current_coin_balances (
  address      bytea   PRIMARY KEY,
  block_number bigint  NOT NULL,
  value        numeric NOT NULL
);
CREATE INDEX address_current_coin_balances_rank ON address_current_coin_balances (value DESC, address) WHERE value > 0;

-- The balances already read.
INSERT INTO address_current_coin_balances (address, block_number, value)
SELECT DISTINCT ON (address) address, block_number, value
FROM address_coin_balances
ORDER BY address, block_number DESC;
