-- Block counts that Blockscout's Block carries. Blocks stored before this migration get their type-3
-- transactions counted here; their deposit requests were not kept, so the count is null (unknown).
ALTER TABLE blocks
  ADD COLUMN blob_transactions_count integer NOT NULL DEFAULT 0,
  ADD COLUMN beacon_deposits_count integer;
UPDATE blocks b SET blob_transactions_count = t.count
FROM (SELECT block_hash, count(*) AS count FROM transactions WHERE type = 3 GROUP BY block_hash) t
WHERE t.block_hash = b.hash;
ALTER TABLE blocks ALTER COLUMN blob_transactions_count DROP DEFAULT;
