import { setTimeout as sleep } from 'node:timers/promises';
import type { Pool } from 'pg';
import pino from 'pino';
import type { RpcClient } from '../../src/chain/rpc.js';
import { startNftMetadataStage } from '../../src/indexer/stages/nft-metadata-stage.js';
import { startTokenMetadataStage } from '../../src/indexer/stages/token-metadata-stage.js';
import { findInstancesWithoutMetadata } from '../../src/store/nft-metadata.js';
import { findTokensWithSupplyMarks, findTokensWithoutMetadata } from '../../src/store/token-metadata.js';

/** Tokens or NFTs read at once. */
const METADATA_BATCH = 1_000;

/** How many tokens, total supplies and NFTs are still to be read, each counted up to 1. */
async function pendingMetadata(pool: Pool): Promise<number> {
  const [tokens, supplies, instances] = await Promise.all([
    findTokensWithoutMetadata(pool, 1),
    findTokensWithSupplyMarks(pool, 1),
    findInstancesWithoutMetadata(pool, 1),
  ]);
  return tokens.length + supplies.length + instances.length;
}

/**
 * Runs Sextant's token and NFT metadata stages against `client` until no token, total supply or NFT
 * is left to read. The generated NFTs' URIs are data: URIs, decoded in place.
 */
export async function runMetadataStages(pool: Pool, client: RpcClient): Promise<void> {
  const logger = pino({ level: 'silent' });
  const common = { pool, client, logger, batchSize: METADATA_BATCH, pollIntervalMs: 50 };
  const stages = [
    startTokenMetadataStage(common),
    startNftMetadataStage({ ...common, fetch: { ipfsGateway: 'https://ipfs.invalid/ipfs', timeoutMs: 1_000, maxBytes: 1024 * 1024, retries: 0 } }),
  ];
  try {
    const failed = Promise.race(stages.map((stage) => stage.done));
    while ((await pendingMetadata(pool)) > 0) await Promise.race([failed, sleep(200)]);
  } finally {
    await Promise.all(stages.map((stage) => stage.stop()));
  }
}
