-- Contracts: their runtime code, verified sources, the verification jobs that produce them, and the
-- functions, events and errors of every verified ABI by selector.

-- Runtime code, read from the node (eth_getCode) at the indexed head by the contract code stage, for
-- the addresses the writers mark as contracts. Code is kept once per hash: clones and factory children
-- share one row of `bytecodes`, and the hash finds a contract's bytecode twins.
CREATE TABLE bytecodes (
  hash bytea PRIMARY KEY,   -- keccak256 of the code
  code bytea NOT NULL
);
CREATE TABLE contract_codes (
  address      bytea  PRIMARY KEY,
  code_hash    bytea  NOT NULL,
  block_number bigint NOT NULL   -- the indexed head the code was read at
);
CREATE INDEX contract_codes_code_hash ON contract_codes (code_hash);
-- A retraction reads again the code read at the heights it takes off.
CREATE INDEX contract_codes_block_number ON contract_codes (block_number);
-- Addresses whose code is to be read (again): a contract newly marked, or one whose code may have changed.
CREATE TABLE contract_code_marks (
  address bytea PRIMARY KEY
);
INSERT INTO contract_code_marks (address) SELECT hash FROM addresses WHERE is_contract;

-- A contract verified from its sources. Twins (other addresses with the same runtime code) are served
-- from the same row through contract_codes.code_hash.
CREATE TABLE verified_contracts (
  address              bytea PRIMARY KEY,
  id                   bigserial   NOT NULL UNIQUE,  -- the verified contracts list's order, newest first
  code_hash            bytea       NOT NULL,  -- of the runtime code that was matched
  name                 text        NOT NULL,
  file_path            text        NOT NULL,
  language             text        NOT NULL,  -- solidity, vyper, yul
  compiler_version     text        NOT NULL,  -- v0.8.37+commit.f401782d
  compiler_settings    jsonb       NOT NULL,
  optimization_enabled boolean     NOT NULL,
  optimization_runs    integer,
  evm_version          text        NOT NULL,
  abi                  jsonb,
  source_code          text        NOT NULL,
  additional_sources   jsonb       NOT NULL,  -- [{file_path, source_code}]
  constructor_args     bytea,
  external_libraries   jsonb       NOT NULL,  -- [{name, address_hash}]
  license_type         text,
  match_type           text        NOT NULL,  -- full, partial
  method               text        NOT NULL,  -- the verification method that produced it
  verified_at          timestamptz NOT NULL
);
CREATE INDEX verified_contracts_code_hash ON verified_contracts (code_hash);

-- Submitted verifications. `id` is the GUID the Etherscan-style API hands out; a job that a process
-- claimed and did not finish by `claimed_until` is claimed again, so jobs survive restarts.
CREATE TABLE verification_jobs (
  id            text PRIMARY KEY,
  address       bytea       NOT NULL,
  request       jsonb       NOT NULL,
  status        text        NOT NULL,  -- pending, success, failure
  errors        jsonb,                 -- {field: [message]} on failure
  created_at    timestamptz NOT NULL,
  claimed_until timestamptz,
  finished_at   timestamptz
);
CREATE INDEX verification_jobs_pending ON verification_jobs (created_at) WHERE status = 'pending';
CREATE INDEX verification_jobs_address ON verification_jobs (address, created_at DESC);

-- The functions, events and errors of every verified ABI, by selector (an event by the first 4 bytes of
-- its topic), so that calls and logs of unverified contracts that share them are decoded too.
CREATE TABLE contract_methods (
  selector bytea NOT NULL,   -- 4 bytes
  type     text  NOT NULL,   -- function, event, error
  abi      jsonb NOT NULL    -- the ABI item
);
-- By hash: an ABI item can be longer than a B-tree entry may be.
CREATE UNIQUE INDEX contract_methods_item ON contract_methods (selector, type, md5(abi::text));
