import type { Pool } from 'pg';
import type { Logger } from 'pino';
import {
  type CoinGeckoOptions,
  fetchCoinHistory,
  fetchCoinMarket,
  fetchPlatformCoins,
  fetchTokenMarkets,
} from '../../offchain/coingecko.js';
import { findIndexedTokens, savePrices } from '../../store/market.js';
import { recordSourceFailure } from '../../store/offchain-sources.js';
import type { Backoff } from '../retry.js';
import type { BackgroundLoop } from './background-loop.js';
import { startScheduledFetch } from './scheduled-fetch.js';

export interface PriceStageOptions {
  pool: Pool;
  logger: Logger;
  coinGecko: CoinGeckoOptions;
  /** The chain's coin at the source; null: no coin price. */
  coinId: string | null;
  /** The chain at the source, whose tokens are priced by contract address; null: no token prices. */
  platformId: string | null;
  intervalMs: number;
  backoff: Backoff;
}

/** Days of the coin's market history fetched: the market chart's 30 (Blockscout's recent history) and today. */
const historyDays = 30;

/**
 * The price source's figures, fetched now and every intervalMs: the coin's and its market history, then the indexed tokens'
 * the source knows on the chain's platform, stored together only when every request succeeded, so a
 * failure leaves all the last values in place.
 */
export function startPriceStage(options: PriceStageOptions): BackgroundLoop {
  const { pool, coinGecko, coinId, platformId, logger } = options;
  return startScheduledFetch({
    logger,
    intervalMs: options.intervalMs,
    backoff: options.backoff,
    recordFailure: (message) => recordSourceFailure(pool, 'prices', message),
    fetch: async () => {
      const coin =
        coinId === null
          ? null
          : { market: await fetchCoinMarket(coinGecko, coinId), history: await fetchCoinHistory(coinGecko, coinId, historyDays) };
      let tokens = null;
      if (platformId !== null) {
        const known = await fetchPlatformCoins(coinGecko, platformId);
        const indexed = await findIndexedTokens(pool, [...known.keys()]);
        tokens = await fetchTokenMarkets(coinGecko, new Map([...known].filter(([address]) => indexed.has(address))));
      }
      await savePrices(pool, coin, tokens);
      logger.debug(`prices fetched: the coin's ${coin === null ? 'not asked' : 'read'}, ${tokens?.length ?? 0} tokens'`);
    },
  });
}
