-- E1 orders an address's positive balances by value, then token name (unnamed last), token type, token
-- address and id. Name and type lived in tokens only, so every page joined and sorted a whole tie group
-- of equal balances. Each balance row now keeps its token's type and name (the token ledger and the
-- token metadata store keep them in step with tokens), and one index follows E1's order exactly.
ALTER TABLE address_token_balances ADD COLUMN token_type text, ADD COLUMN token_name text;
UPDATE address_token_balances b SET token_type = k.type, token_name = k.name FROM tokens k WHERE k.address = b.token_address;
ALTER TABLE address_token_balances ALTER COLUMN token_type SET NOT NULL;
CREATE INDEX address_token_balances_holder_order ON address_token_balances
  (address, value DESC, (token_name IS NULL), (COALESCE(token_name, '')), token_type, token_address, (COALESCE(token_id, -1)))
  WHERE value > 0;
-- Its (address, value DESC) prefix serves what this index served.
DROP INDEX address_token_balances_holder;
