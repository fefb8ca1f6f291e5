import type { CoinMarket } from '../../model.js';
import { planStableStatement } from './plan-stable.js';
import type { Db } from './sql.js';

const coinMarketStatement = planStableStatement(
  'SELECT fiat_value, price_change_percentage_24h, market_cap, volume_24h, image_url FROM coin_market',
);

/** The coin's market figures, null when no price source has given them. */
export async function readCoinMarket(db: Db): Promise<CoinMarket | null> {
  const { rows } = await db.query<{
    fiat_value: string | null;
    price_change_percentage_24h: number | null;
    market_cap: string | null;
    volume_24h: string | null;
    image_url: string | null;
  }>(coinMarketStatement);
  const row = rows[0];
  if (row === undefined) return null;
  return {
    fiatValue: row.fiat_value,
    priceChangePercentage24h: row.price_change_percentage_24h,
    marketCap: row.market_cap,
    volume24h: row.volume_24h,
    imageUrl: row.image_url,
  };
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
