-- Search's tokens in its order (most holders first, then by name, unnamed last, then by address), of
-- every type: a query that most tokens match reads its page here, checking each token's words, rather
-- than sorting every match the full-text index (migration 019) finds.
CREATE INDEX tokens_search_rank ON tokens (holders_count DESC, name ASC NULLS LAST, address);
