import { Type, type Static } from '@sinclair/typebox';
import type { ChainTiming } from '../../store/read/chain.js';
import type { ActivityItem, ChainTotalsItem, GasPricesItem } from '../../store/read/stats.js';
import { DecimalString, Nullable, Timestamp } from '../schemas.js';

const GasPricesSchema = Type.Object({ slow: Type.Number(), average: Type.Number(), fast: Type.Number() });

export const StatsSchema = Type.Object({
  average_block_time: Nullable(Type.Number()),
  coin_image: Nullable(Type.String()),
  coin_price: Nullable(Type.String()),
  coin_price_change_percentage: Nullable(Type.Number()),
  gas_price_updated_at: Nullable(Timestamp),
  gas_prices: Nullable(GasPricesSchema),
  gas_prices_update_in: Nullable(Type.Integer()),
  gas_used_today: DecimalString,
  market_cap: Nullable(Type.String()),
  network_utilization_percentage: Nullable(Type.Number()),
  secondary_coin_image: Nullable(Type.String()),
  secondary_coin_price: Nullable(Type.String()),
  static_gas_price: Nullable(DecimalString),
  total_addresses: DecimalString,
  total_blocks: DecimalString,
  total_gas_used: DecimalString,
  total_transactions: DecimalString,
  transactions_today: DecimalString,
  tvl: Nullable(Type.String()),
});

type Stats = Static<typeof StatsSchema>;

/** Wei in gwei, rounded up to two decimals, as Blockscout's oracle gives its prices. */
const gwei = (wei: number): number => Math.ceil(wei / 1e7) / 100;

export interface StatsInputs {
  totals: ChainTotalsItem;
  timing: ChainTiming;
  gasPrices: GasPricesItem | null;
  networkUtilization: number | null;
  today: ActivityItem;
}

/**
 * The home page's figures. Sextant reads no market data, so the coin's price, image and market cap
 * and the TVL are null; gas prices are computed per request, so there is no next update to announce.
 */
export function statsView({ totals, timing, gasPrices, networkUtilization, today }: StatsInputs): Stats {
  return {
    average_block_time: timing.averageBlockTimeMs,
    coin_image: null,
    coin_price: null,
    coin_price_change_percentage: null,
    gas_price_updated_at: gasPrices?.updatedAt ?? null,
    gas_prices: gasPrices === null ? null : { slow: gwei(gasPrices.slow), average: gwei(gasPrices.average), fast: gwei(gasPrices.fast) },
    gas_prices_update_in: null,
    gas_used_today: today.gasUsed.toString(),
    market_cap: null,
    network_utilization_percentage: networkUtilization,
    secondary_coin_image: null,
    secondary_coin_price: null,
    static_gas_price: null,
    total_addresses: totals.addresses.toString(),
    total_blocks: totals.blocks.toString(),
    total_gas_used: totals.gasUsed.toString(),
    total_transactions: totals.transactions.toString(),
    transactions_today: today.transactions.toString(),
    tvl: null,
  };
}
