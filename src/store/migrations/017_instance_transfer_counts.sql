-- An NFT id's transfers-count costs nothing to read: each instance counts the transfer logs that mention
-- its id (a batch that lists the id twice is one transfer, as E4 lists it once), kept by the token ledger
-- with the block writes and undone by retractions. The ids already indexed are counted here.
ALTER TABLE token_instances ADD COLUMN transfers_count bigint NOT NULL DEFAULT 0;
UPDATE token_instances ti SET transfers_count = c.n
FROM (SELECT token_address, token_id, count(DISTINCT (block_hash, log_index)) AS n
        FROM token_transfers WHERE token_id IS NOT NULL GROUP BY token_address, token_id) c
WHERE c.token_address = ti.token_address AND c.token_id = ti.token_id;
