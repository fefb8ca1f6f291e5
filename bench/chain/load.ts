import pg from 'pg';
import { detectCapabilities } from '../../src/chain/capabilities.js';
import { decodeBlock } from '../../src/chain/decode-block.js';
import { fetchBlocks } from '../../src/chain/fetch-blocks.js';
import { fetchBatchTraces } from '../../src/chain/fetch-traces.js';
import { recordChainFact } from '../../src/store/chain-facts.js';
import { findListScanWindow, writeListCheckpoints } from '../../src/store/list-checkpoints.js';
import { migrate } from '../../src/store/migrate.js';
import { writeBlockBundles } from '../../src/store/write-blocks.js';
import { writeBlockTraces } from '../../src/store/write-traces.js';
import { writeBenchCoinBalances } from './coin-balances.js';
import { createChainGenerator } from './generate.js';
import { createInProcessClient } from './in-process-client.js';
import { runMetadataStages } from './metadata.js';
import { chainShape, type BenchScale } from './scale.js';

export interface LoadOptions {
  scale: BenchScale;
  databaseUrl: string;
  report: (line: string) => void;
  /** Only the first `blocks` blocks of the scale's chain. */
  blocks?: number;
}

const BLOCKS_PER_WRITE = 100;

/**
 * Fills a database with the generated chain without a node or an indexer, through the indexer's own
 * code: fetchBlocks + decodeBlock + writeBlockBundles for blocks, receipts, logs and token transfers,
 * fetchBatchTraces + writeBlockTraces for internal transactions, and the metadata stages' readers and
 * stages for token and NFT metadata, all answered in process by the generator; then coin balances
 * (writeBenchCoinBalances) and the account lists' checkpoints.
 */
export async function loadBenchChain(options: LoadOptions): Promise<void> {
  const chain = createChainGenerator(chainShape(options.scale, options.blocks));
  const client = createInProcessClient(chain);
  const pool = new pg.Pool({ connectionString: options.databaseUrl, max: 2 });
  try {
    await migrate(pool);
    const capabilities = await detectCapabilities(client);
    await recordChainFact(pool, 'chain_id', capabilities.chainId!.toString());
    await recordChainFact(pool, 'genesis_hash', chain.block(0).block.hash);
    const started = performance.now();
    for (let from = 0; from <= chain.head; from += BLOCKS_PER_WRITE) {
      const numbers = Array.from({ length: Math.min(BLOCKS_PER_WRITE, chain.head - from + 1) }, (_, i) => BigInt(from + i));
      const bundles = (await fetchBlocks(client, capabilities, numbers)).map(decodeBlock);
      await writeBlockBundles(pool, bundles);
      const traces = await fetchBatchTraces(
        client,
        capabilities.traceMethod,
        bundles.map(({ block, transactions }) => ({
          hash: block.hash,
          number: block.number,
          transactionHashes: transactions.map((t) => t.hash),
        })),
      );
      await writeBlockTraces(pool, traces);
      if ((from / BLOCKS_PER_WRITE) % 50 === 49) options.report(`loaded blocks 0..${from + numbers.length - 1} of ${chain.head}`);
    }
    options.report(`loaded ${chain.head + 1} blocks with their traces in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    await runMetadataStages(pool, client);
    options.report(`loaded token and NFT metadata; ${((performance.now() - started) / 1000).toFixed(1)} s in all`);
    const balances = await writeBenchCoinBalances(pool);
    options.report(`wrote ${balances} coin balances; ${((performance.now() - started) / 1000).toFixed(1)} s in all`);
    await writeBenchListCheckpoints(pool);
    options.report(`wrote the account lists' checkpoints; ${((performance.now() - started) / 1000).toFixed(1)} s in all`);
  } finally {
    await pool.end();
  }
}

/**
 * The account lists' checkpoints over every loaded block not scanned yet, as the indexer's checkpoint
 * stage writes them, `blocks` at a time; the windows it took.
 */
export async function writeBenchListCheckpoints(pool: pg.Pool, blocks = 1_000): Promise<number> {
  let windows = 0;
  for (let window = await findListScanWindow(pool, blocks); window !== null; window = await findListScanWindow(pool, blocks)) {
    await writeListCheckpoints(pool, window);
    windows += 1;
  }
  return windows;
}
