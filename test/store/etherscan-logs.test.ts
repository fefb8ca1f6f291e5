import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { BlockBundle } from '../../src/model.js';
import { findLogs } from '../../src/store/read/etherscan.js';
import { writeBlockBundles } from '../../src/store/write-blocks.js';
import { type TestDatabase, createTestDatabase } from '../support/database.js';
import { syntheticAddress, syntheticChain } from '../support/synthetic-chain.js';

/**
 * getLogs' logs as PostgreSQL writes their JSON: every field the Etherscan-style API's log has, counts
 * in hex, absent topics null, and a gas price or gas used beyond a bigint (which PostgreSQL's to_hex
 * cannot write) as exact as any other.
 */

const emitter = syntheticAddress('emitter');
const topic = `0x${'ab'.repeat(32)}` as const;
const hugeGasPrice = 2n ** 70n + 5n;
const hugeGasUsed = 2n ** 63n;

/** Block 1 pays an ordinary gas price; block 2 a price and a gas used beyond a bigint; block 3 no price. */
function chain(): BlockBundle[] {
  return syntheticChain({ from: 1n, to: 3n, transactionsPerBlock: () => 1 }).map((bundle, i) => {
    const [transaction] = bundle.transactions;
    const priced =
      i === 1 ? { gasPrice: hugeGasPrice, gasUsed: hugeGasUsed } : i === 2 ? { gasPrice: null } : { gasPrice: transaction!.gasPrice };
    return {
      ...bundle,
      transactions: [Object.assign({}, transaction!, priced)],
      logs: [
        {
          blockHash: bundle.block.hash,
          blockNumber: bundle.block.number,
          transactionHash: transaction!.hash,
          transactionIndex: 0,
          logIndex: 0,
          address: emitter,
          topics: i === 0 ? [] : [topic, topic],
          data: i === 0 ? '0x' : '0x01ff',
        },
      ],
    };
  });
}

let db: TestDatabase;
let bundles: BlockBundle[];
before(async () => {
  db = await createTestDatabase();
  bundles = chain();
  await writeBlockBundles(db.pool, bundles);
});
after(async () => {
  await db?.drop();
});

test('each log is the JSON of its Etherscan-style item, gas beyond a bigint included', async () => {
  const logs = await findLogs(db.pool, { fromBlock: 0, toBlock: 10, address: emitter, topics: [] }, 1000);
  const hex = (value: bigint | number) => `0x${value.toString(16)}`;
  const expected = bundles.map(({ block, transactions: [transaction], logs: [log] }) => ({
    address: emitter,
    topics: [0, 1, 2, 3].map((position) => log!.topics[position] ?? null),
    data: log!.data,
    blockNumber: hex(block.number),
    timeStamp: hex(block.timestamp),
    gasPrice: transaction!.gasPrice === null ? '' : hex(transaction!.gasPrice),
    gasUsed: hex(transaction!.gasUsed!),
    logIndex: '0x0',
    transactionHash: transaction!.hash,
    transactionIndex: '0x0',
  }));
  assert.deepEqual(
    logs.map((log) => JSON.parse(log) as unknown),
    expected,
  );
  assert.equal(logs[1], JSON.stringify(expected[1]));
});
