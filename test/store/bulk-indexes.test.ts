import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { buildDroppedIndex, dropSecondaryIndexes, indexesToBuild } from '../../src/store/bulk-indexes.js';
import { inTransaction } from '../../src/store/transaction.js';
import { writeBlockBundles } from '../../src/store/write-blocks.js';
import { type TestDatabase, createTestDatabase } from '../support/database.js';
import { syntheticChain } from '../support/synthetic-chain.js';

let db: TestDatabase;
before(async () => {
  db = await createTestDatabase();
  await writeBlockBundles(db.pool, syntheticChain({ from: 0n, to: 20n, transactionsPerBlock: () => 3 }));
});
after(async () => {
  await db?.drop();
});

/** Every index of the schema, by name, with its definition. */
async function indexDefinitions(pool: pg.Pool): Promise<Map<string, string>> {
  const { rows } = await pool.query<{ indexname: string; indexdef: string }>(
    `SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' ORDER BY indexname`,
  );
  return new Map(rows.map((r) => [r.indexname, r.indexdef]));
}

test("a bulk load drops the secondary indexes of the tables it fills, keeps keys, blocks' and the token stage's, and builds each again, resuming after a restart", async () => {
  const before = await indexDefinitions(db.pool);
  const dropped = await inTransaction(db.pool, dropSecondaryIndexes);
  for (const name of [
    'transactions_from',
    'transactions_position',
    'token_transfers_to',
    'logs_address',
    'address_token_balances_holder_order',
  ])
    assert.ok(dropped.includes(name), `${name} is dropped`);
  for (const kept of [
    'transactions_pkey',
    'token_transfers_pkey',
    'address_token_balances_address_token_address_token_id_key',
    'blocks_consensus_number',
    'tokens_metadata_pending',
    'tokens_supply_pending',
  ])
    assert.ok(!dropped.includes(kept) && before.has(kept), `${kept} stays`);
  const during = await indexDefinitions(db.pool);
  assert.deepEqual([...before.keys()].filter((name) => !during.has(name)).sort(), dropped);
  const toBuild = await indexesToBuild(db.pool);
  assert.deepEqual([...toBuild].sort(), dropped);
  const sizes = await tableSizes(db.pool, toBuild);
  assert.deepEqual(
    sizes,
    [...sizes].sort((a, b) => b - a),
    `the indexes of the largest tables first: ${toBuild.join(', ')}`,
  );
  assert.ok(sizes[0]! > sizes.at(-1)!, 'tables of several sizes');

  // Two built, then a restart: a new connection pool finds the rest listed and builds them.
  for (const name of dropped.slice(0, 2)) await buildDroppedIndex(db.pool, name, '64MB');
  const restarted = new pg.Pool({ connectionString: db.url, max: 2 });
  try {
    assert.deepEqual((await indexesToBuild(restarted)).sort(), dropped.slice(2));
    for (const name of await indexesToBuild(restarted)) await buildDroppedIndex(restarted, name, '64MB');
    assert.deepEqual(await indexesToBuild(restarted), []);
  } finally {
    await restarted.end();
  }
  assert.deepEqual(await indexDefinitions(db.pool), before, 'every index is back, as the migrations defined it');
});

/** The size of the table of each index a bulk load dropped, in bytes. */
async function tableSizes(pool: pg.Pool, names: readonly string[]): Promise<number[]> {
  const { rows } = await pool.query<{ name: string; size: string }>(
    `SELECT name, pg_relation_size(substring(definition FROM ' ON (\\S+) USING ')::regclass) AS size
     FROM bulk_load_dropped_indexes`,
  );
  const size = new Map(rows.map((row) => [row.name, Number(row.size)]));
  return names.map((name) => size.get(name)!);
}

const twin = `\\x${'ee'.repeat(32)}`;

test('a build that fails leaves its index listed and unbuilt: a unique index over duplicated rows', async () => {
  await inTransaction(db.pool, dropSecondaryIndexes);
  // Two transactions at one position, which transactions_position would have refused.
  await db.pool.query(
    `INSERT INTO transactions
     SELECT (jsonb_populate_record(NULL::transactions, to_jsonb(t) || jsonb_build_object('hash', $1::text))).*
     FROM (SELECT * FROM transactions ORDER BY hash LIMIT 1) t`,
    [twin],
  );
  await assert.rejects(buildDroppedIndex(db.pool, 'transactions_position', '64MB'), /could not create unique index/);
  assert.ok((await indexesToBuild(db.pool)).includes('transactions_position'));
  assert.ok(!(await indexDefinitions(db.pool)).has('transactions_position'));

  await db.pool.query(`DELETE FROM transactions WHERE hash = $1::text::bytea`, [twin]);
  for (const name of await indexesToBuild(db.pool)) await buildDroppedIndex(db.pool, name, '64MB');
  assert.ok((await indexDefinitions(db.pool)).has('transactions_position'));
});
