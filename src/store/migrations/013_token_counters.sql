-- The token page's counters cost nothing to read: each token counts its transfers (one per transferred
-- id and amount, as its transfers list has items), kept by the token ledger with the block writes and
-- undone by retractions. Tokens already indexed are counted here.
ALTER TABLE tokens ADD COLUMN transfers_count bigint NOT NULL DEFAULT 0;
UPDATE tokens k SET transfers_count = c.n
FROM (SELECT token_address, count(*) AS n FROM token_transfers GROUP BY token_address) c
WHERE c.token_address = k.address;
-- A token's holders, largest balance first, ties by holder and id (descending too, so that a page's
-- keyset is one row comparison): each page one range of this index, however deep. Its
-- (token_address, value DESC) prefix serves what address_token_balances_token served.
CREATE INDEX address_token_balances_token_holders ON address_token_balances
  (token_address, value DESC, address DESC, (COALESCE(token_id, -1)) DESC) WHERE value > 0;
DROP INDEX address_token_balances_token;
-- The holders of one NFT id (ERC-1155, ERC-404), largest balance first, then by holder.
CREATE INDEX address_token_balances_instance_holders ON address_token_balances (token_address, token_id, value DESC, address DESC)
  WHERE value > 0 AND token_id IS NOT NULL;
