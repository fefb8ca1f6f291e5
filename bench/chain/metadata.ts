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

/**
 * How long the stages may go without reading anything before the run is taken for stuck: they retry
 * a failing read for ever, and their logger is silent.
 */
const STALL_MS = 120_000;

/** The first token, total supply and NFT still to be read, in the order the stages read them; [] when none is left. */
async function pendingMetadata(pool: Pool): Promise<string[]> {
  const [tokens, supplies, instances] = await Promise.all([
    findTokensWithoutMetadata(pool, 1),
    findTokensWithSupplyMarks(pool, 1),
    findInstancesWithoutMetadata(pool, 1),
  ]);
  return [
    ...tokens.map((address) => `token ${address}`),
    ...supplies.map(({ address }) => `the total supply of ${address}`),
    ...instances.map(({ token, id }) => `NFT ${token} #${id}`),
  ];
}

/**
 * Runs Sextant's token and NFT metadata stages against `client` until no token, total supply or NFT
 * is left to read. The generated NFTs' URIs are data: URIs, decoded in place. Fails, naming what is
 * left, if the first item left to read stays the same for STALL_MS.
 */
export async function runMetadataStages(pool: Pool, client: RpcClient): Promise<void> {
  const logger = pino({ level: 'silent' });
  const common = { pool, client, logger, batchSize: METADATA_BATCH, pollIntervalMs: 50 };
  const stages = [
    startTokenMetadataStage(common),
    startNftMetadataStage({
      ...common,
      fetch: { ipfsGateway: 'https://ipfs.invalid/ipfs', timeoutMs: 1_000, maxBytes: 1024 * 1024, retries: 0 },
    }),
  ];
  try {
    const failed = Promise.race(stages.map((stage) => stage.done));
    let left = await pendingMetadata(pool);
    let movedAt = Date.now();
    while (left.length > 0) {
      await Promise.race([failed, sleep(200)]);
      const now = await pendingMetadata(pool);
      if (now.join() !== left.join()) movedAt = Date.now();
      else if (Date.now() - movedAt > STALL_MS) {
        throw new Error(`the metadata stages read nothing in ${STALL_MS / 1000} s; the first left to read: ${now.join(', ')}`);
      }
      left = now;
    }
  } finally {
    await Promise.all(stages.map((stage) => stage.stop()));
  }
}
