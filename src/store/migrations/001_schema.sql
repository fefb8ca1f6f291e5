-- The whole schema: hashes and addresses as bytea, amounts as numeric, heights as bigint.
-- Every list the API serves has a composite index matching its keyset order, so that a page
-- deep in a list costs what the first one costs.

-- Facts about the indexed chain (chain id, genesis hash), checked at start so that one database
-- never mixes two chains.
CREATE TABLE chain_facts (
  key   text PRIMARY KEY,
  value text NOT NULL
);

CREATE TABLE blocks (
  hash              bytea PRIMARY KEY,
  number            bigint      NOT NULL,
  parent_hash       bytea       NOT NULL,
  -- false once a reorg replaced the block; its derived rows are then removed.
  consensus         boolean     NOT NULL,
  timestamp         timestamptz NOT NULL,
  miner             bytea       NOT NULL,
  nonce             bytea,
  difficulty        numeric,
  total_difficulty  numeric,
  size              bigint,
  extra_data        bytea       NOT NULL,
  state_root        bytea       NOT NULL,
  gas_limit         numeric     NOT NULL,
  gas_used          numeric     NOT NULL,
  base_fee_per_gas  numeric,
  blob_gas_used     numeric,
  excess_blob_gas   numeric,
  uncles            bytea[]     NOT NULL,
  transactions_count integer    NOT NULL,
  withdrawals_count integer     NOT NULL,
  transaction_fees  numeric     NOT NULL,
  burnt_fees        numeric     NOT NULL,
  priority_fee      numeric     NOT NULL,
  -- Internal transactions are a separate, resumable stage: null until traced (or when tracing is off).
  traced_at         timestamptz
);
CREATE UNIQUE INDEX blocks_consensus_number ON blocks (number) WHERE consensus;
CREATE INDEX blocks_miner_number ON blocks (miner, number DESC) WHERE consensus;
CREATE INDEX blocks_untraced ON blocks (number) WHERE consensus AND traced_at IS NULL;
-- A lookup by number that finds no consensus block says whether the height lost consensus.
CREATE INDEX blocks_lost_number ON blocks (number) WHERE NOT consensus;

-- Mined transactions of consensus blocks.
CREATE TABLE transactions (
  hash                     bytea PRIMARY KEY,
  block_number             bigint      NOT NULL,
  block_hash               bytea       NOT NULL,
  index                    integer     NOT NULL,
  block_timestamp          timestamptz NOT NULL,
  from_address             bytea       NOT NULL,
  to_address               bytea,
  created_contract         bytea,
  nonce                    bigint      NOT NULL,
  type                     smallint,
  value                    numeric     NOT NULL,
  gas_limit                numeric     NOT NULL,
  gas_price                numeric,
  max_fee_per_gas          numeric,
  max_priority_fee_per_gas numeric,
  input                    bytea       NOT NULL,
  status                   smallint,
  gas_used                 numeric     NOT NULL,
  cumulative_gas_used      numeric     NOT NULL,
  max_fee_per_blob_gas     numeric,
  blob_gas_used            numeric,
  blob_gas_price           numeric,
  -- Filled by the trace stage.
  error                    text,
  revert_reason            bytea,
  has_error_in_internal_transactions boolean
);
CREATE UNIQUE INDEX transactions_position ON transactions (block_number DESC, index DESC);
CREATE INDEX transactions_from ON transactions (from_address, block_number DESC, index DESC);
CREATE INDEX transactions_to ON transactions (to_address, block_number DESC, index DESC);
CREATE INDEX transactions_created_contract ON transactions (created_contract, block_number DESC, index DESC)
  WHERE created_contract IS NOT NULL;
-- E2 token_creation: creations in list order.
CREATE INDEX transactions_creations ON transactions (block_number DESC, index DESC) WHERE created_contract IS NOT NULL;
-- E2 method filter: the 4-byte selector, served by its own keyset index.
CREATE INDEX transactions_method ON transactions (substring(input FROM 1 FOR 4), block_number DESC, index DESC)
  WHERE length(input) >= 4;

-- Transactions seen in the node's pool and not yet mined.
CREATE TABLE pending_transactions (
  hash                     bytea PRIMARY KEY,
  inserted_at              timestamptz NOT NULL,
  from_address             bytea       NOT NULL,
  to_address               bytea,
  nonce                    bigint      NOT NULL,
  type                     smallint,
  value                    numeric     NOT NULL,
  gas_limit                numeric     NOT NULL,
  gas_price                numeric,
  max_fee_per_gas          numeric,
  max_priority_fee_per_gas numeric,
  input                    bytea       NOT NULL
);
CREATE INDEX pending_transactions_order ON pending_transactions (inserted_at DESC, hash);

CREATE TABLE withdrawals (
  block_hash      bytea   NOT NULL,
  index           bigint  NOT NULL,
  block_number    bigint  NOT NULL,
  validator_index bigint  NOT NULL,
  address         bytea   NOT NULL,
  amount          numeric NOT NULL,
  PRIMARY KEY (block_hash, index)
);
CREATE INDEX withdrawals_address ON withdrawals (address, index DESC);

-- What is known about addresses from indexed data.
CREATE TABLE addresses (
  hash        bytea PRIMARY KEY,
  is_contract boolean NOT NULL
);

CREATE TABLE tokens (
  address       bytea PRIMARY KEY,
  type          text    NOT NULL,       -- ERC-20, ERC-721, ERC-1155, ERC-404
  name          text,
  symbol        text,
  decimals      numeric,
  total_supply  numeric,
  holders_count bigint  NOT NULL DEFAULT 0,
  metadata_fetched_at timestamptz
);

-- One row per transferred (token id, amount): an ERC-1155 batch is split by batch_index.
CREATE TABLE token_transfers (
  block_hash        bytea   NOT NULL,
  log_index         integer NOT NULL,
  batch_index       integer NOT NULL,
  block_number      bigint  NOT NULL,
  transaction_hash  bytea   NOT NULL,
  transaction_index integer NOT NULL,
  token_address     bytea   NOT NULL,
  token_type        text    NOT NULL,
  from_address      bytea   NOT NULL,
  to_address        bytea   NOT NULL,
  amount            numeric,
  token_id          numeric,
  PRIMARY KEY (block_hash, log_index, batch_index)
);
CREATE INDEX token_transfers_from ON token_transfers (from_address, block_number DESC, log_index DESC, batch_index DESC);
CREATE INDEX token_transfers_to ON token_transfers (to_address, block_number DESC, log_index DESC, batch_index DESC);
CREATE INDEX token_transfers_token ON token_transfers (token_address, block_number DESC, log_index DESC, batch_index DESC);
CREATE INDEX token_transfers_instance ON token_transfers (token_address, token_id, block_number DESC, log_index DESC, batch_index DESC)
  WHERE token_id IS NOT NULL;
CREATE INDEX token_transfers_transaction ON token_transfers (transaction_hash);

CREATE TABLE token_instances (
  token_address bytea   NOT NULL,
  token_id      numeric NOT NULL,
  owner         bytea,
  token_uri     text,
  metadata      jsonb,
  metadata_error text,
  metadata_fetched_at timestamptz,
  PRIMARY KEY (token_address, token_id)
);
CREATE INDEX token_instances_owner ON token_instances (owner, token_address, token_id);

-- Current balances: ERC-20 amounts (token_id null), ERC-721 and ERC-1155 per id.
CREATE TABLE address_token_balances (
  address       bytea   NOT NULL,
  token_address bytea   NOT NULL,
  token_id      numeric,
  value         numeric NOT NULL,
  UNIQUE NULLS NOT DISTINCT (address, token_address, token_id)
);
CREATE INDEX address_token_balances_token ON address_token_balances (token_address, value DESC);

-- Internal transactions (trace frames), index 0 being the top-level call.
CREATE TABLE internal_transactions (
  block_hash        bytea    NOT NULL,
  transaction_index integer  NOT NULL,
  index             integer  NOT NULL,
  block_number      bigint   NOT NULL,
  transaction_hash  bytea    NOT NULL,
  trace_address     integer[] NOT NULL,
  type              text     NOT NULL,  -- call, create, create2, selfdestruct, reward
  call_type         text,               -- call, delegatecall, staticcall, callcode
  from_address      bytea    NOT NULL,
  to_address        bytea,
  created_contract  bytea,
  value             numeric  NOT NULL,
  gas               numeric,
  gas_used          numeric,
  error             text,
  PRIMARY KEY (block_hash, transaction_index, index)
);
CREATE INDEX internal_transactions_from ON internal_transactions (from_address, block_number DESC, transaction_index DESC, index DESC);
CREATE INDEX internal_transactions_to ON internal_transactions (to_address, block_number DESC, transaction_index DESC, index DESC);
CREATE INDEX internal_transactions_created ON internal_transactions (created_contract, block_number DESC, transaction_index DESC, index DESC)
  WHERE created_contract IS NOT NULL;
CREATE INDEX internal_transactions_transaction ON internal_transactions (transaction_hash, index);

-- Block rewards (from Parity-style reward traces).
CREATE TABLE block_rewards (
  block_hash   bytea   NOT NULL,
  address      bytea   NOT NULL,
  type         text    NOT NULL,  -- validator, emission_funds, uncle
  reward       numeric NOT NULL,
  PRIMARY KEY (block_hash, address, type)
);
