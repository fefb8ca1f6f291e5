-- Primary ENS names and the operator's address tags.

-- An address checked for a primary name by the ENS stage, at the indexed head: its addr.reverse node,
-- the name its reverse record claims (and that name's node) and `name`, the claimed name when it
-- resolves forward to the address (else null). Every checked address has a row, named or not, so that
-- a later ENS event on its reverse node or on its name's node marks it again.
CREATE TABLE ens_names (
  address      bytea       PRIMARY KEY,
  reverse_node bytea       NOT NULL,
  claimed      text,
  claimed_node bytea,
  name         text,
  block_number bigint      NOT NULL,  -- the indexed head the name was read at
  checked_at   timestamptz NOT NULL
);
CREATE INDEX ens_names_reverse_node ON ens_names (reverse_node);
CREATE INDEX ens_names_claimed_node ON ens_names (claimed_node) WHERE claimed_node IS NOT NULL;
-- Search by name, and the schedule of re-checks of the names shown.
CREATE INDEX ens_names_name ON ens_names (name) WHERE name IS NOT NULL;
CREATE INDEX ens_names_recheck ON ens_names (checked_at) WHERE claimed IS NOT NULL;
CREATE INDEX ens_names_block ON ens_names (block_number);

-- Addresses to check (again): each mark a new number, so that a check made before it does not clear it.
CREATE SEQUENCE ens_mark_numbers;
CREATE TABLE ens_marks (
  address bytea  PRIMARY KEY,
  mark    bigint NOT NULL
);

-- How far the ENS stage has looked through the indexed blocks for addresses and ENS events: every
-- consensus block up to block_number (one row).
CREATE TABLE ens_scan (
  one          boolean PRIMARY KEY DEFAULT true CHECK (one),
  block_number bigint  NOT NULL
);

-- The tags of the operator's tags file (ADDRESS_TAGS_FILE), replaced as a whole when it changes.
-- tag_type 'public' is one of the address's public_tags; the others are its metadata tags.
CREATE TABLE address_tags (
  address  bytea   NOT NULL,
  slug     text    NOT NULL,
  name     text    NOT NULL,
  tag_type text    NOT NULL,
  ordinal  integer NOT NULL,
  meta     jsonb,
  PRIMARY KEY (address, slug)
);
