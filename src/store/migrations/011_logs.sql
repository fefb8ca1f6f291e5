-- Every receipt log, written with its block and removed with it. A log has at most four topics
-- (LOG0 to LOG4), kept as four nullable columns: Blockscout renders exactly these four, null where
-- the log has fewer, and its topic filter compares each of them.
CREATE TABLE logs (
  block_hash        bytea   NOT NULL,
  log_index         integer NOT NULL,
  block_number      bigint  NOT NULL,
  transaction_hash  bytea   NOT NULL,
  transaction_index integer NOT NULL,
  address           bytea   NOT NULL,
  first_topic       bytea,
  second_topic      bytea,
  third_topic       bytea,
  fourth_topic      bytea,
  data              bytea   NOT NULL,
  -- A transaction's logs are one run of log indexes in its block: the primary key serves its list
  -- (block hash and transaction index from the transaction, log_index ascending) and the retraction.
  PRIMARY KEY (block_hash, log_index)
);
-- The logs an address emitted, newest first.
CREATE INDEX logs_address ON logs (address, block_number DESC, log_index DESC);
