-- A holder's transfers of one token, by block, with what its balance is summed from (token_type tells
-- the ledger's row a transfer counts under). A transaction's state changes read each token balance it
-- moved at the block below it as the sum of the holder's transfers of that token from the nearer end of
-- their history (readLedgerTokenBalancesAt): one range of each index, read without the table. Before,
-- the sum walked every later transfer of the holder, all tokens alike (2.6 to 3.3 s for a busy holder
-- at the 1,000,000-transaction benchmark scale, 1.0 ms with these). An address's transfers of one token
-- (E8's token filter) are one range of them too. Their upkeep: copying 200,933 transfers into a table
-- of 1,008,882 took a median 9.7 s with them against 4.7 s without.
CREATE INDEX token_transfers_from_token ON token_transfers (from_address, token_address, block_number) INCLUDE (amount, token_id, token_type);
CREATE INDEX token_transfers_to_token ON token_transfers (to_address, token_address, block_number) INCLUDE (amount, token_id, token_type);

-- An address's withdrawals by block: a state change's coin balance from the index alone (an earlier
-- balance read, when nothing moved the coin since) looks for a withdrawal between the read and the
-- block, one range of this index. Through withdrawals_address it walked all the address's withdrawals
-- (13,784 at the bench's busiest: 15 ms warm, 94 ms cold, against 0.35 ms). Copying 200,000
-- withdrawals into a table of 600,000 took a median 2.3 s with it against 1.4 s without (three runs each).
CREATE INDEX withdrawals_address_block ON withdrawals (address, block_number);
