-- Total supply follows mints and burns: the block writer marks a token whose supply its blocks change,
-- and the token metadata stage reads totalSupply() again for marked tokens. Each mark is a new number,
-- so that the stage clears only the mark it read under: a mark set while it was reading stays.
CREATE SEQUENCE token_supply_marks;
ALTER TABLE tokens ADD COLUMN supply_mark bigint;
CREATE INDEX tokens_supply_pending ON tokens (address) WHERE supply_mark IS NOT NULL;
