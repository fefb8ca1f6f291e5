-- What Sextant reads from outside the chain about prices and tokens, fetched in the background by the
-- indexer (never on a request) and kept here so that every API process, and a replica, serves the
-- same values. Each source's rows are replaced whole by its next successful fetch; a failed fetch
-- leaves them as they were and is recorded in offchain_sources, which GET /health reports.

-- The chain's coin, from the price source (EXCHANGE_RATES_SOURCE): one row at most.
CREATE TABLE coin_market (
  singleton                   boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  fiat_value                  numeric,          -- USD per coin
  price_change_percentage_24h double precision,
  market_cap                  numeric,          -- USD
  volume_24h                  numeric,          -- USD
  image_url                   text,
  fetched_at                  timestamptz NOT NULL
);

-- Tokens of this chain the price source knows by contract address (its platform), among those indexed.
CREATE TABLE token_market (
  address                bytea PRIMARY KEY,
  fiat_value             numeric,
  circulating_market_cap numeric,
  volume_24h             numeric,
  icon_url               text,
  fetched_at             timestamptz NOT NULL
);

-- The entries of the token list (TOKEN_LIST_URL) for this chain's id: icons, and the name, symbol and
-- decimals of a token whose contract does not answer them.
CREATE TABLE token_list_entries (
  address  bytea PRIMARY KEY,
  name     text,
  symbol   text,
  decimals numeric,
  logo_uri text
);

-- Each configured outside source's state: when it last answered, and its failures since.
CREATE TABLE offchain_sources (
  name                 text PRIMARY KEY,
  last_success_at      timestamptz,
  last_failure_at      timestamptz,
  last_error           text,
  consecutive_failures integer NOT NULL DEFAULT 0
);
