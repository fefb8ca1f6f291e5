-- Search (GET /api/v2/search, /search/quick, /search/check-redirect) finds tokens by the words of their
-- symbol and name, each word of the query a prefix of one of theirs, as Blockscout's full-text match
-- does ('simple': no stemming, no stop words); this index serves that match, whatever the number of tokens.
CREATE INDEX tokens_search_words ON tokens USING gin (to_tsvector('simple', coalesce(symbol, '') || ' ' || coalesce(name, '')))
  WITH (fastupdate = off);
-- check-redirect sends a query that is exactly one token's name or symbol, in any case, to its page.
CREATE INDEX tokens_lower_name ON tokens (lower(name));
CREATE INDEX tokens_lower_symbol ON tokens (lower(symbol));
