import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Hex, LogRecord } from '../../src/model.js';
import { retractBlocksFrom } from '../../src/store/retract-blocks.js';
import { writeBlockBundles } from '../../src/store/write-blocks.js';
import { type TestDatabase, createTestDatabase } from '../support/database.js';
import { syntheticAddress, syntheticChain } from '../support/synthetic-chain.js';

let db: TestDatabase;
before(async () => {
  db = await createTestDatabase();
});
after(async () => {
  await db?.drop();
});

const topic = (n: number): Hex => `0x${n.toString(16).padStart(64, '0')}`;

/** Logs of every shape a receipt holds: zero to four topics, empty and long data, in every transaction of a block. */
function withLogs(from: bigint, to: bigint, salt?: string) {
  const bundles = syntheticChain({ from, to, transactionsPerBlock: () => 2, ...(salt === undefined ? {} : { salt }) });
  for (const bundle of bundles) {
    let logIndex = 0;
    for (const tx of bundle.transactions) {
      for (let topics = 0; topics <= 4; topics++) {
        bundle.logs.push({
          blockHash: bundle.block.hash,
          blockNumber: bundle.block.number,
          transactionHash: tx.hash,
          transactionIndex: tx.index,
          logIndex,
          address: syntheticAddress(`emitter:${topics}`),
          topics: Array.from({ length: topics }, (_, i) => topic(1000 * logIndex + i)),
          data: topics === 0 ? '0x' : `0x${'ab'.repeat(32 * topics)}`,
        });
        logIndex++;
      }
    }
  }
  return bundles;
}

/** The logs table read back as the model's records, the topics as many as were stored. */
async function storedLogs(): Promise<LogRecord[]> {
  const { rows } = await db.pool.query(
    `SELECT block_hash, block_number, transaction_hash, transaction_index, log_index, address,
            first_topic, second_topic, third_topic, fourth_topic, data
     FROM logs ORDER BY block_number, log_index`,
  );
  const hex = (b: Buffer): Hex => `0x${b.toString('hex')}`;
  return rows.map((r) => ({
    blockHash: hex(r.block_hash),
    blockNumber: BigInt(r.block_number),
    transactionHash: hex(r.transaction_hash),
    transactionIndex: r.transaction_index,
    logIndex: r.log_index,
    address: hex(r.address),
    topics: [r.first_topic, r.second_topic, r.third_topic, r.fourth_topic].filter((t) => t !== null).map(hex),
    data: hex(r.data),
  }));
}

test('every log is written with its block and read back exactly, zero to four topics, empty data included', async () => {
  const bundles = withLogs(100n, 103n);
  await writeBlockBundles(db.pool, bundles);
  const written = bundles.flatMap((b) => b.logs);
  assert.equal(written.length, 4 * 2 * 5);
  assert.deepEqual(await storedLogs(), written);
});

test('retracted blocks take their logs with them, and the branch that replaces them brings its own', async () => {
  await retractBlocksFrom(db.pool, 102n);
  const kept = withLogs(100n, 101n).flatMap((b) => b.logs);
  assert.deepEqual(await storedLogs(), kept);
  const fork = withLogs(102n, 103n, 'fork');
  fork[0]!.block.parentHash = withLogs(101n, 101n)[0]!.block.hash;
  await writeBlockBundles(db.pool, fork);
  assert.deepEqual(await storedLogs(), [...kept, ...fork.flatMap((b) => b.logs)]);
});

test('a log with more than four topics is refused and its batch written not at all', async () => {
  const [bundle] = withLogs(200n, 200n);
  bundle!.logs[0]!.topics = [1, 2, 3, 4, 5].map(topic);
  await assert.rejects(writeBlockBundles(db.pool, [bundle!]), /has 5 topics/);
  assert.equal((await db.pool.query('SELECT 1 FROM blocks WHERE number = 200')).rows.length, 0);
});
