import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { BackgroundLoop } from '../indexer/stages/background-loop.js';
import { startAddressTagsStage } from '../indexer/stages/address-tags-stage.js';
import { startPriceStage } from '../indexer/stages/price-stage.js';
import { startTokenListStage } from '../indexer/stages/token-list-stage.js';
import type { Retry } from '../indexer/retry.js';
import { forgetSource } from '../store/offchain-sources.js';
import type { Database } from './database.js';
import type { Resources } from './resources.js';

/** A failed fetch is tried again after 10 s, then 20 s, 40 s… up to the source's interval. */
const firstRetryMs = 10_000;
/** No answer from CoinGecko within this is a failure. */
const coinGeckoTimeoutMs = 30_000;

/**
 * The outside sources the indexer reads beside the chain: the price source, the token list and the
 * operator's address tags file, each when configured. A source not configured has what an earlier run stored forgotten, so that its fields
 * are null again, as they are without one.
 */
export async function startOffchainSources(
  config: Config,
  logger: Logger,
  database: Database,
  chainId: bigint | null,
  resources: Resources,
  retry: Retry,
): Promise<BackgroundLoop[]> {
  const { pool } = database;
  const stages: BackgroundLoop[] = [];
  if (config.exchangeRatesSource === 'coin_gecko') {
    const stage = startPriceStage({
      pool,
      logger: logger.child({ component: 'prices' }),
      coinGecko: { baseUrl: config.coinGeckoBaseUrl, apiKey: config.coinGeckoApiKey, timeoutMs: coinGeckoTimeoutMs },
      coinId: config.coinGeckoCoinId,
      platformId: config.coinGeckoPlatformId,
      intervalMs: config.exchangeRatesFetchIntervalMs,
      backoff: { initialMs: firstRetryMs, maxMs: Math.max(firstRetryMs, config.exchangeRatesFetchIntervalMs) },
    });
    resources.add(() => stage.stop());
    stages.push(stage);
  } else {
    await retry('forgetting the stored prices', () => forgetSource(pool, 'prices'));
  }
  if (config.tokenListUrl !== null && chainId !== null) {
    const stage = startTokenListStage({
      pool,
      logger: logger.child({ component: 'token-list' }),
      source: config.tokenListUrl,
      chainId: Number(chainId),
      intervalMs: config.tokenListRefetchIntervalMs,
      backoff: { initialMs: firstRetryMs, maxMs: Math.max(firstRetryMs, config.tokenListRefetchIntervalMs) },
    });
    resources.add(() => stage.stop());
    stages.push(stage);
  } else {
    if (config.tokenListUrl !== null)
      logger.warn('the node gives no chain id: the token list is not read, its entries are chosen by chain id');
    await retry('forgetting the stored token list', () => forgetSource(pool, 'token_list'));
  }
  if (config.addressTagsFile !== null) {
    const stage = startAddressTagsStage({
      pool,
      path: config.addressTagsFile,
      logger: logger.child({ component: 'address-tags' }),
      pollIntervalMs: Math.max(config.pollIntervalMs, 1_000),
    });
    resources.add(() => stage.stop());
    stages.push(stage);
  } else {
    await retry('forgetting the stored address tags', () => forgetSource(pool, 'address_tags'));
  }
  return stages;
}
