import { pino } from 'pino';
import { detectCapabilities } from '../../src/chain/capabilities.js';
import type { RpcClient } from '../../src/chain/rpc.js';
import type { IndexerOptions } from '../../src/indexer/blocks/indexer.js';
import type { TestDatabase } from './database.js';

/** Indexer options for tests: small concurrent batches, quick polling and retries, no logs. */
export async function testIndexerOptions(
  db: TestDatabase,
  client: RpcClient,
  lastBlock: bigint | null,
  overrides: Partial<IndexerOptions> = {},
): Promise<IndexerOptions> {
  return {
    pool: db.pool,
    client,
    capabilities: await detectCapabilities(client),
    logger: pino({ level: 'silent' }),
    firstBlock: 0n,
    lastBlock,
    batchSize: 7,
    concurrency: 3,
    pollIntervalMs: 50,
    maxReorgDepth: 128,
    backoff: { initialMs: 10, maxMs: 100 },
    ...overrides,
  };
}
