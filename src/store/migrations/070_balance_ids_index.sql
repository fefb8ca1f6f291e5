-- address_token_balances_ids (migration 005) held the per-id balance rows by (address, token_address,
-- token_id): the columns, in the same order, of the table's unique key, which holds every row. The reads
-- it served (E3's ERC-1155 and ERC-404 collections and their previews) name the address and the token
-- and find the same range in the unique key, whose entries carry token_id for the partial index's
-- condition. Every write of a per-id balance row wrote an entry in both; now in one.
DROP INDEX address_token_balances_ids;
