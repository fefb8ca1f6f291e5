-- The coin's daily market history from the price source (CoinGecko's /coins/{id}/market_chart): the
-- points of the market chart (/api/v2/stats/charts/market), each day's last price and market cap in US
-- dollars. Replaced whole with coin_market by each successful fetch; the coins in circulation give the
-- chart's available_supply.
ALTER TABLE coin_market ADD COLUMN circulating_supply numeric;

CREATE TABLE coin_market_history (
  day           date PRIMARY KEY,
  closing_price numeric,
  market_cap    numeric
);
