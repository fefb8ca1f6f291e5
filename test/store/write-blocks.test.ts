import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { findMissingRanges, highestIndexedBlock, consensusBlockHash } from '../../src/store/index-progress.js';
import { retractBlocksFrom } from '../../src/store/retract-blocks.js';
import { writeBlockBundles } from '../../src/store/write-blocks.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { syntheticChain } from '../support/synthetic-chain.js';

let db: TestDatabase;
before(async () => {
  db = await createTestDatabase();
});
after(async () => {
  await db.drop();
});

const count = async (sql: string) => Number((await db.pool.query<{ n: string }>(sql)).rows[0]!.n);

test('writes blocks, transactions and withdrawals, and reads back exact values', async () => {
  const bundles = syntheticChain({ from: 10n, to: 14n, transactionsPerBlock: (n) => Number(n % 3n) });
  bundles[0]!.withdrawals.push({
    blockHash: bundles[0]!.block.hash,
    blockNumber: 10n,
    index: 7n,
    validatorIndex: 99n,
    address: '0x00000000000000000000000000000000000000aa',
    amount: 15_404_464_000_000_000n,
  });
  await writeBlockBundles(db.pool, bundles);
  assert.equal(await count('SELECT count(*) AS n FROM blocks WHERE consensus'), 5);
  assert.equal(await count('SELECT count(*) AS n FROM transactions'), 1 + 2 + 0 + 1 + 2);
  const { rows } = await db.pool.query("SELECT amount::text, encode(address, 'hex') AS address FROM withdrawals WHERE index = 7");
  assert.deepEqual(rows, [{ amount: '15404464000000000', address: '00000000000000000000000000000000000000aa' }]);
  const block = (await db.pool.query("SELECT timestamp, encode(hash, 'hex') AS hash, uncles FROM blocks WHERE number = 12")).rows[0];
  assert.equal(block.timestamp.toISOString(), new Date(Number(bundles[2]!.block.timestamp) * 1000).toISOString());
  assert.equal(`0x${block.hash}`, bundles[2]!.block.hash);
  assert.deepEqual(block.uncles, []);
  assert.equal(await highestIndexedBlock(db.pool), 14n);
});

test('finds the missing ranges around and between indexed blocks', async () => {
  await writeBlockBundles(db.pool, syntheticChain({ from: 20n, to: 21n, transactionsPerBlock: () => 1 }));
  assert.deepEqual(await findMissingRanges(db.pool, 0n, 25n), [
    { from: 0n, to: 9n },
    { from: 15n, to: 19n },
    { from: 22n, to: 25n },
  ]);
  assert.deepEqual(await findMissingRanges(db.pool, 10n, 14n), []);
  assert.deepEqual(await findMissingRanges(db.pool, 12n, 16n), [{ from: 15n, to: 16n }]);
  assert.deepEqual(await findMissingRanges(db.pool, 30n, 29n), []);
});

test('a batch that fails part-way writes nothing', async () => {
  const bundles = syntheticChain({ from: 30n, to: 32n, transactionsPerBlock: () => 2 });
  // The same transaction hash twice violates the primary key in the last block's rows.
  bundles[2]!.transactions[1] = { ...bundles[2]!.transactions[1]!, hash: bundles[0]!.transactions[0]!.hash };
  await assert.rejects(writeBlockBundles(db.pool, bundles), /duplicate key/);
  assert.equal(await count('SELECT count(*) AS n FROM blocks WHERE number BETWEEN 30 AND 32'), 0);
  assert.equal(await count('SELECT count(*) AS n FROM transactions WHERE block_number BETWEEN 30 AND 32'), 0);
});

test('records created contracts and log emitters as contracts, once', async () => {
  const [bundle] = syntheticChain({ from: 40n, to: 40n, transactionsPerBlock: () => 0 });
  const contract = '0x00000000000000000000000000000000000000cc' as const;
  bundle!.addresses.push({ hash: contract, isContract: true }, { hash: contract, isContract: true });
  await writeBlockBundles(db.pool, [bundle!]);
  assert.equal(
    await count("SELECT count(*) AS n FROM addresses WHERE is_contract AND hash = '\\x00000000000000000000000000000000000000cc'"),
    1,
  );
});

test('retracting blocks keeps them as non-consensus and removes what was derived from them', async () => {
  const before = await count('SELECT count(*) AS n FROM transactions WHERE block_number >= 13');
  assert.ok(before > 0, `${before} transactions from block 13 on`);
  const retracted = await retractBlocksFrom(db.pool, 13n);
  assert.equal(retracted, 5); // 13, 14, 20, 21 and 40 (30–32 never landed)
  assert.equal(await count('SELECT count(*) AS n FROM transactions WHERE block_number >= 13'), 0);
  assert.equal(await count('SELECT count(*) AS n FROM blocks WHERE NOT consensus'), retracted);
  assert.equal(await consensusBlockHash(db.pool, 13n), null);
  assert.equal(await highestIndexedBlock(db.pool), 12n);
  // The replacing branch, and then the original one again, can both be written.
  const fork = syntheticChain({ from: 13n, to: 14n, transactionsPerBlock: () => 1, salt: 'fork' });
  await writeBlockBundles(db.pool, fork);
  assert.equal(await consensusBlockHash(db.pool, 13n), fork[0]!.block.hash);
  await retractBlocksFrom(db.pool, 13n);
  const original = syntheticChain({ from: 13n, to: 14n, transactionsPerBlock: (n) => Number(n % 3n) });
  await writeBlockBundles(db.pool, original);
  assert.equal(await consensusBlockHash(db.pool, 14n), original[1]!.block.hash);
});
