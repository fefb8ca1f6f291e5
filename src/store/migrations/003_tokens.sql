-- E1 and E3 read an address's positive balances, largest first.
CREATE INDEX address_token_balances_holder ON address_token_balances (address, value DESC) WHERE value > 0;

-- Where the owner of an NFT id was last set: batches of blocks may be written out of order, and only a
-- later transfer may replace the owner.
ALTER TABLE token_instances ADD COLUMN owner_block_number bigint, ADD COLUMN owner_log_index integer;

-- The tokens whose contract the metadata stage has not read yet.
CREATE INDEX tokens_metadata_pending ON tokens (address) WHERE metadata_fetched_at IS NULL;

-- The NFT ids whose metadata the metadata stage has not fetched yet.
CREATE INDEX token_instances_metadata_pending ON token_instances (token_address, token_id) WHERE metadata_fetched_at IS NULL;
