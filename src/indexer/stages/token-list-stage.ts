import type { Pool } from 'pg';
import type { Logger } from 'pino';
import { readTokenList } from '../../offchain/token-list.js';
import { saveTokenList } from '../../store/market.js';
import { recordSourceFailure } from '../../store/offchain-sources.js';
import type { Backoff } from '../retry.js';
import type { BackgroundLoop } from './background-loop.js';
import { startScheduledFetch } from './scheduled-fetch.js';

export interface TokenListStageOptions {
  pool: Pool;
  logger: Logger;
  /** An http(s) URL or a file. */
  source: string;
  chainId: number;
  intervalMs: number;
  backoff: Backoff;
}

/** The token list's entries for this chain, read now and every intervalMs, each read replacing the last. */
export function startTokenListStage(options: TokenListStageOptions): BackgroundLoop {
  const { pool, logger } = options;
  return startScheduledFetch({
    logger,
    intervalMs: options.intervalMs,
    backoff: options.backoff,
    recordFailure: (message) => recordSourceFailure(pool, 'token_list', message),
    fetch: async () => {
      const entries = await readTokenList(options.source, options.chainId);
      await saveTokenList(pool, entries);
      logger.info(`token list: ${entries.length} tokens of chain ${options.chainId}`);
    },
  });
}
