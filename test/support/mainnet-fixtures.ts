import { readFileSync } from 'node:fs';
import { decodeBlock } from '../../src/chain/decode-block.js';
import type { RpcBlock, RpcReceipt } from '../../src/chain/rpc-types.js';
import { writeBlockBundles } from '../../src/store/write-blocks.js';
import { type TestDatabase, createTestDatabase } from './database.js';
import type { Recording } from './replay-node.js';

/** Mainnet block 18,000,000 as an Erigon archive node served it (test/fixtures/erigon-rpc-tests). */
export const MAINNET_BLOCK_NUMBER = 18_000_000n;

const ERIGON_RECORDINGS = new URL('../fixtures/erigon-rpc-tests/integration/mainnet/', import.meta.url);

/** Block 18,000,000 with its 94 full transactions and 16 withdrawals, and its 94 receipts, as JSON. */
export function loadMainnetBlock18000000(): { block: RpcBlock; receipts: RpcReceipt[] } {
  return {
    block: recordedResult('eth_getBlockByNumber/test_08.json') as RpcBlock,
    receipts: recordedResult('eth_getBlockReceipts/test_02.json') as RpcReceipt[],
  };
}

/** A test database holding block 18,000,000 alone, written as the indexer writes a block. */
export async function createMainnetBlockDatabase(): Promise<TestDatabase> {
  const db = await createTestDatabase();
  const { block, receipts } = loadMainnetBlock18000000();
  await writeBlockBundles(db.pool, [decodeBlock({ number: MAINNET_BLOCK_NUMBER, block, receipts })]);
  return db;
}

/**
 * What a node serving only block 18,000,000 answers: the block (with full transactions, and with
 * transaction hashes only, as a node sends it for `false`: derived from the recording) and its receipts.
 */
export function loadMainnetBlock18000000Recordings(): Recording[] {
  const { block, receipts } = loadMainnetBlock18000000();
  const header = { ...block, transactions: block.transactions.map((transaction) => (transaction as { hash: string }).hash) };
  return [
    { method: 'eth_getBlockByNumber', params: ['0x112a880', true], result: block },
    { method: 'eth_getBlockByNumber', params: ['0x112a880', false], result: header },
    { method: 'eth_getBlockReceipts', params: ['0x112a880'], result: receipts },
  ];
}

/** The result of the single request an erigon rpc-tests file records. */
function recordedResult(file: string): unknown {
  const [exchange] = JSON.parse(readFileSync(new URL(file, ERIGON_RECORDINGS), 'utf8')) as { response: { result: unknown } }[];
  if (exchange === undefined) throw new Error(`${file} records no exchange`);
  return exchange.response.result;
}
