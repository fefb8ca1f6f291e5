import type { CoinMarket, CoinMarketDay } from '../../model.js';
import { planStableStatement } from './plan-stable.js';
import type { Db } from './sql.js';

const coinMarketStatement = planStableStatement(
  'SELECT fiat_value, price_change_percentage_24h, market_cap, volume_24h, image_url, circulating_supply FROM coin_market',
);

/** The coin's market figures, null when no price source has given them. */
export async function readCoinMarket(db: Db): Promise<CoinMarket | null> {
  const { rows } = await db.query<{
    fiat_value: string | null;
    price_change_percentage_24h: number | null;
    market_cap: string | null;
    volume_24h: string | null;
    image_url: string | null;
    circulating_supply: string | null;
  }>(coinMarketStatement);
  const row = rows[0];
  if (row === undefined) return null;
  return {
    fiatValue: row.fiat_value,
    priceChangePercentage24h: row.price_change_percentage_24h,
    marketCap: row.market_cap,
    volume24h: row.volume_24h,
    imageUrl: row.image_url,
    circulatingSupply: row.circulating_supply,
  };
}

/**
 * The market chart's points, as Blockscout makes them of the coin's recent history: its last `days`
 * days, newest first, the newest day's price the current one (when the source gave one), and a day
 * without a market cap given the coins in circulation times its price.
 */
export async function readCoinMarketChart(db: Db, days: number): Promise<CoinMarketDay[]> {
  const { rows } = await db.query<{ day: string; closing_price: string | null; market_cap: string | null }>(
    `WITH recent AS (
       SELECT h.day, h.market_cap, c.circulating_supply,
              CASE WHEN row_number() OVER (ORDER BY h.day DESC) = 1 AND c.singleton THEN c.fiat_value ELSE h.closing_price END AS closing_price
       FROM coin_market_history h LEFT JOIN coin_market c ON true
       ORDER BY h.day DESC LIMIT $1)
     SELECT to_char(day, 'YYYY-MM-DD') AS day, closing_price, coalesce(market_cap, circulating_supply * closing_price) AS market_cap
     FROM recent ORDER BY day DESC`,
    [days],
  );
  return rows.map((r) => ({ day: r.day, closingPrice: r.closing_price, marketCap: r.market_cap }));
}

/** The state of an outside source an indexer fetches from: when it last answered, its failures since. */
export interface OffchainSourceState {
  name: string;
  lastSuccessAt: Date | null;
  lastFailureAt: Date | null;
  lastError: string | null;
  consecutiveFailures: number;
}

export async function readOffchainSources(db: Db): Promise<OffchainSourceState[]> {
  const { rows } = await db.query<{
    name: string;
    last_success_at: Date | null;
    last_failure_at: Date | null;
    last_error: string | null;
    consecutive_failures: number;
  }>('SELECT name, last_success_at, last_failure_at, last_error, consecutive_failures FROM offchain_sources ORDER BY name');
  return rows.map((r) => ({
    name: r.name,
    lastSuccessAt: r.last_success_at,
    lastFailureAt: r.last_failure_at,
    lastError: r.last_error,
    consecutiveFailures: r.consecutive_failures,
  }));
}
