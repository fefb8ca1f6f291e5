import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, test } from 'node:test';
import type { Pool } from 'pg';
import { pino } from 'pino';
import { type IndexerOptions, startIndexer } from '../../src/indexer/blocks/indexer.js';
import { startTraceStage } from '../../src/indexer/stages/trace-stage.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { assertSameSnapshot, indexDefinitions, snapshotDatabase } from '../support/database-snapshot.js';
import { runListCheckpointStage } from '../support/list-checkpoint-stage.js';
import { testIndexerOptions } from '../support/indexer-options.js';
import type { Hex } from '../../src/model.js';
import { consensusBlockHash, highestIndexedBlock } from '../../src/store/index-progress.js';
import { waitForMined } from '../support/mined.js';
import { startTokenChain, type TokenChain } from '../support/token-chain.js';
import { waitFor } from '../support/wait.js';

let chain: TokenChain;
let head: bigint;
const databases: TestDatabase[] = [];

before(async () => {
  chain = await startTokenChain();
  head = BigInt(await chain.client.request<string>('eth_blockNumber', []));
});

after(async () => {
  await chain?.anvil.stop();
  for (const db of databases) await db.drop();
});

/** The blocks below the head that a bulk load takes in these tests; the rest is indexed as usual. */
const DISTANCE = 3;

/**
 * The indexer to LAST_BLOCK at the head, then the trace stage over what is left untraced and the
 * checkpoint stage over what is left unscanned, as `sextant index` runs them.
 */
async function index(db: TestDatabase, overrides: Partial<IndexerOptions>): Promise<void> {
  const indexer = startIndexer(await testIndexerOptions(db, chain.client, head, overrides));
  await indexer.done;
  const stage = startTraceStage({
    pool: db.pool,
    client: chain.client,
    traceMethod: 'trace_block',
    logger: pino({ level: 'silent' }),
    batchSize: 3,
    concurrency: 2,
    pollIntervalMs: 20,
    backoff: { initialMs: 10, maxMs: 100 },
  });
  await stage.drained();
  await stage.stop();
  await runListCheckpointStage(db.pool);
}

async function newDatabase(): Promise<TestDatabase> {
  const db = await createTestDatabase();
  databases.push(db);
  return db;
}

async function markedAddresses(pool: Pool): Promise<string[]> {
  const { rows } = await pool.query<{ address: string }>("SELECT encode(address, 'hex') AS address FROM coin_balance_marks ORDER BY 1");
  return rows.map((r) => r.address);
}

/** A logger whose lines are kept, to tell what the indexer did. */
function keptLogger(lines: string[]) {
  return pino(
    { level: 'info' },
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(String(JSON.parse(String(chunk)).msg));
        done();
      },
    }),
  );
}

test('a bulk load of history, then its switch and the usual indexing to the head, gives the database a usual index gives', async () => {
  const usual = await newDatabase();
  await index(usual, {});

  const bulk = await newDatabase();
  const lines: string[] = [];
  await index(bulk, {
    logger: keptLogger(lines),
    maxReorgDepth: 2,
    bulkLoad: {
      settings: { distance: DISTANCE, minBlocks: 1, workMem: '64MB', switchConcurrency: 2 },
      traces: { client: chain.client, method: 'trace_block' },
    },
  });
  const last = head - BigInt(DISTANCE);
  assert.ok(
    lines.some((line) => line.startsWith(`bulk load of blocks 0 to ${last} done`)),
    `the bulk load ran: ${lines.join(' | ')}`,
  );
  assert.ok(
    lines.some((line) => line.startsWith('bulk load: index ')),
    'indexes were built again',
  );

  assertSameSnapshot(await snapshotDatabase(bulk.pool), await snapshotDatabase(usual.pool), 'bulk load against usual index');
  assert.deepEqual(await markedAddresses(bulk.pool), await markedAddresses(usual.pool), 'the addresses marked for a coin balance read');
  assert.deepEqual(await indexDefinitions(bulk.pool), await indexDefinitions(usual.pool), 'every index is back');
  assert.equal((await bulk.pool.query('SELECT 1 FROM bulk_load')).rowCount, 0, 'the bulk load is over');
});

test('a database that holds blocks already is indexed as usual, whatever the distance to the head', async () => {
  const db = await newDatabase();
  await index(db, { lastBlock: 5n });
  const lines: string[] = [];
  await index(db, {
    logger: keptLogger(lines),
    maxReorgDepth: 2,
    bulkLoad: { settings: { distance: DISTANCE, minBlocks: 1, workMem: '64MB', switchConcurrency: 2 }, traces: null },
  });
  assert.ok(!lines.some((line) => line.includes('bulk')), lines.join(' | '));
});

/** Mines one block per value transfer, `values` apart from any other branch's. */
async function mineTransfers(values: readonly number[]): Promise<void> {
  const [from, to] = await chain.client.request<Hex[]>('eth_accounts', []);
  for (const value of values) {
    const hash = await chain.client.request<Hex>('eth_sendTransaction', [{ from, to, value: `0x${value.toString(16)}` }]);
    await waitForMined(chain.client, hash);
  }
}

const nodeHead = async () => BigInt(await chain.client.request<string>('eth_blockNumber', []));

/** Until the stored tip is the node's head block. */
async function waitForTip(db: TestDatabase): Promise<void> {
  const head = await nodeHead();
  const { hash } = await chain.client.request<{ hash: Hex }>('eth_getBlockByNumber', [`0x${head.toString(16)}`, false]);
  await waitFor(
    async () => (await highestIndexedBlock(db.pool)) === head && (await consensusBlockHash(db.pool, head)) === hash,
    `block ${head} (${hash}) indexed`,
  );
}

// Last: it mines on the shared chain.
test('after a bulk load, a reorg near the head is followed as in a usual index', async () => {
  const bulk = await newDatabase();
  const indexer = startIndexer(
    await testIndexerOptions(bulk, chain.client, null, {
      maxReorgDepth: 2,
      bulkLoad: {
        settings: { distance: DISTANCE, minBlocks: 1, workMem: '64MB', switchConcurrency: 2 },
        traces: { client: chain.client, method: 'trace_block' },
      },
    }),
  );
  try {
    await indexer.caughtUp;
    assert.equal((await bulk.pool.query('SELECT 1 FROM bulk_load')).rowCount, 0, 'the bulk load is over');
    const snapshot = await chain.client.request<Hex>('evm_snapshot', []);
    await mineTransfers([1_001, 1_002]);
    await waitForTip(bulk);
    assert.equal(await chain.client.request<boolean>('evm_revert', [snapshot]), true);
    await mineTransfers([2_001, 2_002, 2_003]);
    await waitForTip(bulk);
  } finally {
    await indexer.stop();
  }
  head = await nodeHead();
  await index(bulk, {});
  const usual = await newDatabase();
  await index(usual, {});
  // The replaced blocks stay as non-consensus rows, which a clean index of the final chain never saw.
  const { rowCount } = await bulk.pool.query('DELETE FROM blocks WHERE NOT consensus');
  assert.equal(rowCount, 2, 'the two replaced blocks were kept as lost');
  assertSameSnapshot(await snapshotDatabase(bulk.pool), await snapshotDatabase(usual.pool), 'after the reorg');
});
