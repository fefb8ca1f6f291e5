import { Type, type Static } from '@sinclair/typebox';
import type { CoinMarket } from '../../model.js';
import type { ChainTiming } from '../../store/read/chain.js';
import type { ActivityItem, ChainTotalsItem, GasPricePercentiles } from '../../store/read/stats.js';
import type { GasPriceReading } from '../gas-price-oracle.js';
import { DecimalString, Nullable, Timestamp } from '../schemas.js';

/** One speed of Blockscout's gas price oracle: its price, and the base fee and priority fee it adds up (all in gwei). */
const GasPriceSchema = Type.Object({
  base_fee: Nullable(Type.Number()),
  fiat_price: Nullable(Type.String()),
  price: Type.Number(),
  priority_fee: Nullable(Type.Number()),
  time: Nullable(Type.Number()),
});

/** Each speed as an object for a client that sends `updated-gas-oracle: true` (Blockscout's frontend does), else its price alone. */
const GasPriceSpeedSchema = Type.Union([GasPriceSchema, Type.Number()]);
const GasPricesSchema = Type.Object({ slow: GasPriceSpeedSchema, average: GasPriceSpeedSchema, fast: GasPriceSpeedSchema });

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
const gwei = (wei: number | bigint): number => Math.ceil(Number(wei) / 1e7) / 100;

/** The gas of a plain coin transfer, which Blockscout prices each speed's fee at. */
const simpleTransactionGas = 21_000;

/** A speed's fee for a plain transfer in dollars, to the cent, as Blockscout's oracle gives it; null without a coin price. */
const fiatFee = (priceGwei: number, coinPrice: string | null): string | null =>
  coinPrice === null ? null : ((priceGwei * simpleTransactionGas * Number(coinPrice)) / 1e9).toFixed(2);

export interface StatsInputs {
  totals: ChainTotalsItem;
  timing: ChainTiming;
  gasPrices: GasPriceReading;
  /** Whether the client asked for the oracle's objects (`updated-gas-oracle: true`) rather than bare prices. */
  gasPriceObjects: boolean;
  networkUtilization: number | null;
  today: ActivityItem;
  /** The coin's market figures from the price source; null without one. */
  coin: CoinMarket | null;
}

type Speed = keyof GasPricePercentiles;
const speeds: readonly Speed[] = ['slow', 'average', 'fast'];

/**
 * The oracle's speeds as Blockscout composes them: where the blocks hold EIP-1559 transactions and the
 * chain has a base fee, the next block's base fee plus the mean priority fee of the speed; else the
 * mean gas price paid. The time to inclusion is the average block time, since Sextant does not know
 * when a transaction was first seen (Blockscout falls back on it as well); no fiat price without market data.
 */
function gasPricesView(
  { figures }: GasPriceReading,
  objects: boolean,
  blockTimeMs: number | null,
  coinPrice: string | null,
): Stats['gas_prices'] {
  if (figures === null) return null;
  const { gasPrice, priorityFee, nextBaseFee } = figures;
  const speed = (s: Speed) => {
    if (priorityFee === null || nextBaseFee === null) {
      const price = gwei(gasPrice[s]);
      return { base_fee: null, fiat_price: fiatFee(price, coinPrice), price, priority_fee: null, time: blockTimeMs };
    }
    const tip = priorityFee[s];
    const price = gwei(Number(nextBaseFee) + tip);
    return {
      base_fee: gwei(nextBaseFee),
      fiat_price: fiatFee(price, coinPrice),
      price,
      priority_fee: gwei(tip),
      time: blockTimeMs,
    };
  };
  const [slow, average, fast] = speeds.map(speed) as [ReturnType<typeof speed>, ReturnType<typeof speed>, ReturnType<typeof speed>];
  return objects ? { slow, average, fast } : { slow: slow.price, average: average.price, fast: fast.price };
}

/**
 * The home page's figures. The coin's price, image, 24 h change (rounded up to two decimals, as
 * Blockscout rounds its own) and market cap are the price source's, null without one; the TVL and the
 * secondary coin are not fetched.
 */
export function statsView({ totals, timing, gasPrices, gasPriceObjects, networkUtilization, today, coin }: StatsInputs): Stats {
  const change = coin?.priceChangePercentage24h ?? null;
  return {
    average_block_time: timing.averageBlockTimeMs,
    coin_image: coin?.imageUrl ?? null,
    coin_price: coin?.fiatValue ?? null,
    coin_price_change_percentage: change === null ? null : Math.ceil(change * 100) / 100,
    gas_price_updated_at: gasPrices.updatedAt.toISOString().replace('Z', '000Z'),
    gas_prices: gasPricesView(gasPrices, gasPriceObjects, timing.averageBlockTimeMs, coin?.fiatValue ?? null),
    gas_prices_update_in: gasPrices.updateInMs,
    gas_used_today: today.gasUsed.toString(),
    market_cap: coin?.marketCap ?? null,
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
