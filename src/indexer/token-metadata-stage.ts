import type { Pool } from 'pg';
import type { Logger } from 'pino';
import type { RpcClient } from '../chain/rpc.js';
import { readTokenMetadata } from '../chain/token-metadata.js';
import { findTokensWithoutMetadata, saveTokenMetadata } from '../store/token-metadata.js';
import { type BackgroundLoop, startBackgroundLoop } from './background-loop.js';
import type { Backoff } from './retry.js';

export interface TokenMetadataStageOptions {
  pool: Pool;
  /** A client with a short timeout: a contract that does not answer must not hold the stage. */
  client: RpcClient;
  logger: Logger;
  /** Tokens read at once. */
  batchSize: number;
  pollIntervalMs: number;
  backoff?: Backoff;
}

/**
 * Reads the name, symbol, decimals and total supply of the tokens the indexer has found, beside the
 * block pipeline, which never waits for it. A call that fails leaves its field null; the token is
 * not read again.
 */
export function startTokenMetadataStage(options: TokenMetadataStageOptions): BackgroundLoop {
  const { pool, client, logger } = options;
  return startBackgroundLoop(options, async (retry) => {
    const tokens = await retry('finding tokens to read', () => findTokensWithoutMetadata(pool, options.batchSize));
    if (tokens.length === 0) return false;
    const read = new Map(await Promise.all(tokens.map(async (token) => [token, await readTokenMetadata(client, token)] as const)));
    await retry('saving token metadata', () => saveTokenMetadata(pool, read));
    logger.debug(`read the metadata of ${tokens.length} tokens`);
    return true;
  });
}
