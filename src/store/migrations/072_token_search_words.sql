-- Each token keeps the words search matches (migration 019's: its symbol's and its name's, lowercased,
-- unstemmed) as a column, computed when the token's row is written rather than for every token a
-- search reads: a search walks the tokens in rank order (migration 069) and tests each one's words,
-- which cost a to_tsvector per token read when they were an expression only.
ALTER TABLE tokens
  ADD COLUMN search_words tsvector GENERATED ALWAYS AS (to_tsvector('simple', coalesce(symbol, '') || ' ' || coalesce(name, ''))) STORED;
DROP INDEX tokens_search_words;
CREATE INDEX tokens_search_words ON tokens USING gin (search_words) WITH (fastupdate = off);
