-- Where the Etherscan-style account lists of a busy address (txlist: the transactions it sent, received
-- or created; tokentx, tokennfttx, token1155tx: its transfers of one token type) have their every
-- n-th row, in block order: a page of `page` and `offset` starts at the checkpoint below its first row
-- and skips fewer than n rows, where it would skip every row before it. A background stage writes them
-- over the indexed blocks in order from list_scan.from_block, without a gap, up to list_scan.block_number;
-- a retraction takes off those at and above its height, and a block indexed below from_block makes
-- them all wrong (the stage starts again; the lists read none meanwhile).
CREATE TABLE list_checkpoints (
  -- 'transactions' or a token type.
  list         text    NOT NULL,
  address      bytea   NOT NULL,
  -- The rows of the list before this one.
  ordinal      bigint  NOT NULL,
  block_number bigint  NOT NULL,
  -- The transaction's index in its block, or the transfer's log index.
  index        integer NOT NULL,
  -- The transfer's place in an ERC-1155 batch; 0 for a transaction.
  batch_index  integer NOT NULL,
  PRIMARY KEY (list, address, ordinal)
);

CREATE TABLE list_scan (
  one          boolean PRIMARY KEY DEFAULT true CHECK (one),
  from_block   bigint  NOT NULL,
  block_number bigint  NOT NULL
);

-- A retraction's.
CREATE INDEX list_checkpoints_block ON list_checkpoints (block_number);
