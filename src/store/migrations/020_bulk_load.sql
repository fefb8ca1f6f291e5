-- A bulk load of history far from the head: blocks first_block..last_block written by COPY without the
-- secondary indexes and the per-batch ledger, then the switch to the normal indexed mode, phase by phase
-- (ledger, indexes, statistics), steps_done counting the steps of the current phase already committed so
-- that a restart resumes after them. One row while the load and its switch run; none before or after.
-- The API reads it to refuse what it cannot answer from a database without its indexes.
CREATE TABLE bulk_load (
  id          boolean PRIMARY KEY DEFAULT true CHECK (id),
  phase       text    NOT NULL CHECK (phase IN ('loading', 'ledger', 'indexes', 'statistics')),
  first_block bigint  NOT NULL,
  last_block  bigint  NOT NULL,
  steps_done  integer NOT NULL DEFAULT 0
);

-- The secondary indexes a bulk load dropped, with the statements that build them again: recorded in the
-- transaction that drops them, each row deleted in the transaction that builds its index, so that a crash
-- at any point of the switch leaves exactly the indexes still to build listed here.
CREATE TABLE bulk_load_dropped_indexes (
  name       text PRIMARY KEY,
  definition text NOT NULL
);
