-- E3 reads an address's collections one token type at a time, in token address order, and stops at
-- the page's end: ERC-721 from the positive per-token rows (shared with ERC-20), ERC-1155 and ERC-404
-- from the per-id rows. Without these, a holder of many tokens had every balance row joined,
-- grouped and sorted for each page.
CREATE INDEX address_token_balances_positive_tokens ON address_token_balances (address, token_address)
  WHERE token_id IS NULL AND value > 0;
CREATE INDEX address_token_balances_ids ON address_token_balances (address, token_address, token_id)
  WHERE token_id IS NOT NULL;
-- The tokens of one type in address order: the other side of E3's per-type read.
CREATE INDEX tokens_type_address ON tokens (type, address);
-- The planner reads no statistics from a partial index's expression, so it guessed a few dozen
-- transactions for any selector and sorted all of a common selector's transactions instead of reading
-- transactions_method in order. Statistics on the expression itself give it the real counts.
CREATE STATISTICS transactions_selector ON (substring(input FROM 1 FOR 4)) FROM transactions;
