import type { Pool } from 'pg';
import { createContractCaller } from '../../chain/contract-calls.js';
import type { RpcClient } from '../../chain/rpc.js';
import { readTokenUris } from '../../chain/token-uri.js';
import {
  type FetchedInstance,
  type PendingInstance,
  findInstancesWithoutMetadata,
  saveInstanceMetadata,
} from '../../store/nft-metadata.js';
import { type BackgroundLoop, type BackgroundLoopOptions, startBackgroundLoop } from './background-loop.js';
import { type NftMetadataOptions, fetchNftMetadata } from '../../offchain/nft-metadata.js';

export interface NftMetadataStageOptions extends BackgroundLoopOptions {
  pool: Pool;
  /** A client with a short timeout, for tokenURI and uri calls. */
  client: RpcClient;
  fetch: NftMetadataOptions;
  /** Ids fetched at once. */
  batchSize: number;
}

async function fetchInstance(
  options: NftMetadataStageOptions,
  instance: PendingInstance,
  tokenUri: string | null,
): Promise<FetchedInstance> {
  if (tokenUri === null) return Object.assign({}, instance, { tokenUri, metadata: null, error: 'the contract gives no token URI' });
  return Object.assign({}, instance, { tokenUri }, await fetchNftMetadata(tokenUri, options.fetch));
}

/**
 * Fetches the metadata of the NFT ids the indexer has found, beside the block pipeline, which never
 * waits for it (an offline machine indexes all the same). The URIs of a batch are read at once (through
 * Multicall3 where the chain has it, else in JSON-RPC batches). Each id is fetched once; a failure is
 * recorded as the id's metadata error, except the node's, after which the batch is read again.
 */
export function startNftMetadataStage(options: NftMetadataStageOptions): BackgroundLoop {
  const { pool, logger } = options;
  const caller = createContractCaller(options.client);
  return startBackgroundLoop(options, async (retry) => {
    const pending = await retry('finding NFTs to fetch', () => findInstancesWithoutMetadata(pool, options.batchSize));
    if (pending.length === 0) return false;
    const tokenUris = await retry('reading token URIs', () => readTokenUris(caller, pending));
    const fetched = await Promise.all(pending.map((instance, i) => fetchInstance(options, instance, tokenUris[i] ?? null)));
    await retry('saving NFT metadata', () => saveInstanceMetadata(pool, fetched));
    logger.debug(`fetched the metadata of ${fetched.length} NFTs`);
    return true;
  });
}
