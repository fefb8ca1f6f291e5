-- The last row the checkpoint stage numbered of each busy account list, with its ordinal: a scan numbers
-- a list's new rows from here, reading only the rows its blocks add, where from the list's last
-- checkpoint it would read up to 255 rows again. Kept beside list_checkpoints: a retraction takes off
-- those at and above its height (the stage then counts from the last checkpoint below), and a scan
-- begun again drops them all.
CREATE TABLE list_tails (
  list         text    NOT NULL,
  address      bytea   NOT NULL,
  ordinal      bigint  NOT NULL,
  block_number bigint  NOT NULL,
  index        integer NOT NULL,
  batch_index  integer NOT NULL,
  PRIMARY KEY (list, address)
);
