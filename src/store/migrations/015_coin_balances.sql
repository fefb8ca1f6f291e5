-- Native coin balances, read from the node by the coin balance stage. The block writer marks the addresses
-- its blocks touch (senders, recipients, created contracts, miners, withdrawal receivers) in
-- coin_balance_marks; the stage reads each marked address's balance at the indexed head (eth_getBalance)
-- and stores one row per read in address_coin_balances. Each mark is a new number, so that the stage
-- clears only the mark it read under: a block written while it was reading leaves its own. A retraction
-- deletes the rows of the heights it takes off the chain and marks their addresses again. An address with
-- no row has no known balance (null), never a guessed one.
CREATE SEQUENCE coin_balance_mark_numbers;
CREATE TABLE coin_balance_marks (
  address bytea  PRIMARY KEY,
  mark    bigint NOT NULL
);

-- The primary key serves an address's history newest first, its latest row, and paging by block_number.
CREATE TABLE address_coin_balances (
  address      bytea   NOT NULL,
  block_number bigint  NOT NULL,
  value        numeric NOT NULL,
  PRIMARY KEY (address, block_number)
);
-- A retraction finds the rows of the heights it takes off.
CREATE INDEX address_coin_balances_block ON address_coin_balances (block_number);

-- The addresses already indexed are read once.
INSERT INTO coin_balance_marks (address, mark)
SELECT a, nextval('coin_balance_mark_numbers') FROM (
  SELECT from_address FROM transactions UNION SELECT to_address FROM transactions
  UNION SELECT created_contract FROM transactions
  UNION SELECT miner FROM blocks WHERE consensus UNION SELECT address FROM withdrawals
) s(a)
WHERE a IS NOT NULL;
