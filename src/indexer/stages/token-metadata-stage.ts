import type { Pool } from 'pg';
import { type ContractCaller, createContractCaller } from '../../chain/contract-calls.js';
import type { RpcClient } from '../../chain/rpc.js';
import { readTokenMetadata, readTotalSupplies } from '../../chain/token-metadata.js';
import { findTokensWithSupplyMarks, findTokensWithoutMetadata, saveTokenMetadata, saveTotalSupplies } from '../../store/token-metadata.js';
import { type BackgroundLoop, type BackgroundLoopOptions, startBackgroundLoop } from './background-loop.js';
import type { Retry } from '../retry.js';

export interface TokenMetadataStageOptions extends BackgroundLoopOptions {
  pool: Pool;
  /** A client with a short timeout: a contract that does not answer must not hold the stage. */
  client: RpcClient;
  /** Tokens read at once. */
  batchSize: number;
}

/**
 * Reads the name, symbol, decimals and total supply of the tokens the indexer has found (through
 * Multicall3 where the chain has it, else in JSON-RPC batches), beside the block pipeline, which never
 * waits for it. A call that reverts leaves its field null (a node that fails is asked again); the
 * token is not read again, except its total supply, read again whenever written blocks mint or burn
 * it (repeated mints before a read cost one read; a call that reverts keeps the previous value).
 */
export function startTokenMetadataStage(options: TokenMetadataStageOptions): BackgroundLoop {
  const caller = createContractCaller(options.client);
  return startBackgroundLoop(
    options,
    async (retry) => (await readNewTokens(options, caller, retry)) || (await refreshTotalSupplies(options, caller, retry)),
  );
}

async function readNewTokens(
  { pool, logger, batchSize }: TokenMetadataStageOptions,
  caller: ContractCaller,
  retry: Retry,
): Promise<boolean> {
  const tokens = await retry('finding tokens to read', () => findTokensWithoutMetadata(pool, batchSize));
  if (tokens.length === 0) return false;
  const read = await retry('reading token metadata', () => readTokenMetadata(caller, tokens));
  await retry('saving token metadata', () => saveTokenMetadata(pool, read));
  logger.debug(`read the metadata of ${tokens.length} tokens`);
  return true;
}

async function refreshTotalSupplies(
  { pool, logger, batchSize }: TokenMetadataStageOptions,
  caller: ContractCaller,
  retry: Retry,
): Promise<boolean> {
  const marked = await retry('finding total supplies to refresh', () => findTokensWithSupplyMarks(pool, batchSize));
  if (marked.length === 0) return false;
  const supplies = await retry('reading total supplies', () =>
    readTotalSupplies(
      caller,
      marked.map((token) => token.address),
    ),
  );
  const read = marked.map((token, i) => Object.assign({}, token, { totalSupply: supplies[i] ?? null }));
  await retry('saving total supplies', () => saveTotalSupplies(pool, read));
  logger.debug(`refreshed the total supply of ${marked.length} tokens`);
  return true;
}
