-- A blob (type-3) transaction's EIP-4844 versioned hashes; null for every other type, and for blob
-- transactions stored before this migration (their hashes were not kept).
ALTER TABLE transactions ADD COLUMN blob_versioned_hashes bytea[];

-- The EIP-7702 authorizations of set-code (type-4) transactions, written with their block and removed
-- with it. The primary key serves a transaction's list (its block hash and index, then list order) and
-- the retraction (block_hash). The authority is the signer recovered from the signature, null when the
-- signature recovers none.
CREATE TABLE transaction_authorizations (
  block_hash        bytea    NOT NULL,
  transaction_index integer  NOT NULL,
  index             integer  NOT NULL,
  chain_id          numeric  NOT NULL,
  address           bytea    NOT NULL,
  nonce             numeric  NOT NULL,
  y_parity          smallint NOT NULL,
  r                 numeric  NOT NULL,
  s                 numeric  NOT NULL,
  authority         bytea,
  PRIMARY KEY (block_hash, transaction_index, index)
);

-- Uncles are non-consensus block rows, as Blockscout keeps them, fetched with their nephew (the block
-- that lists them) and removed with it. nephew_hash tells an uncle from a block that lost consensus in a
-- reorg (null): each kind has its own partial index on number, for its list and for a lookup by number.
ALTER TABLE blocks ADD COLUMN nephew_hash bytea;
DROP INDEX blocks_lost_number;
CREATE INDEX blocks_reorg_number ON blocks (number) WHERE NOT consensus AND nephew_hash IS NULL;
CREATE INDEX blocks_uncle_number ON blocks (number) WHERE nephew_hash IS NOT NULL;
-- The retraction of a nephew finds its uncles.
CREATE INDEX blocks_nephew ON blocks (nephew_hash) WHERE nephew_hash IS NOT NULL;
