-- The balance rows of the tokens whose names are not known yet: when the token metadata stage stores a
-- token's name, it copies it into them (E1 orders by it). No other index of address_token_balances
-- holds every row of a token (those led by the token are of positive balances), so each save of names
-- read the whole table: 32 ms a save over the first 10,000 blocks of the benchmark's full scale, where
-- it was the third largest statement of the usual indexer (10.6 of 137.7 s of PostgreSQL's CPU), and a
-- cost growing with the table wherever new tokens keep coming. The index holds only the rows without a
-- name: those of tokens not read yet, and of tokens that have none.
CREATE INDEX address_token_balances_unnamed ON address_token_balances (token_address) WHERE token_name IS NULL;
