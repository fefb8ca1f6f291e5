import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import type { AnvilNode } from '../../src/demo/anvil.js';
import { ledgerSteps } from '../../src/store/bulk-ledger.js';
import { assertSameSnapshot, indexDefinitions, snapshotDatabase, type DatabaseSnapshot } from '../support/database-snapshot.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { seededRandom } from '../support/fault-proxy.js';
import { spawnSextant, type SextantChild } from '../support/sextant-process.js';
import { BULK_LOAD_TEST_DISTANCE, bulkLoadEnv, bulkLoadState, indexToTheEnd } from '../support/bulk-load-runs.js';
import { waitFor } from '../support/wait.js';
import { startScenarioChain } from '../support/scenario-chain.js';

// A bulk load killed with SIGKILL in its load and in each phase of its switch (ledger, indexes,
// statistics), then run to its end, leaves the database a usual index of the chain leaves. Each kill
// in the switch comes inside the transaction of a step picked at random: the test holds a lock that
// the step's first statement waits for, kills the process while it waits, then lets the lock go.

const EXTRA_BLOCKS = 600;

let anvil: AnvilNode;
let head: bigint;
let reference: DatabaseSnapshot;
let referenceIndexes: string[];
const databases: TestDatabase[] = [];

async function newDatabase(): Promise<TestDatabase> {
  const db = await createTestDatabase({ migrated: false });
  databases.push(db);
  return db;
}

/** Runs Sextant until every stage is done and no bulk load is left under way. */
const indexUntilSettled = (db: TestDatabase, bulk: boolean): Promise<void> => indexToTheEnd(db.pool, head, indexEnv(db, bulk));

const indexEnv = (db: TestDatabase, bulk: boolean): Record<string, string> => bulkLoadEnv(db.url, { anvil, head }, bulk);

async function storedBlocks(db: TestDatabase): Promise<number> {
  const schema = await db.pool.query<{ present: boolean }>("SELECT to_regclass('blocks') IS NOT NULL AS present");
  if (!schema.rows[0]!.present) return 0;
  return (await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM blocks')).rows[0]!.n;
}

/**
 * Each ledger step's first statement and the table it writes: a lock on the table makes the step wait
 * inside its transaction. The statement tells it from the stages beside it, which also touch some of
 * these tables. Not the tokens', the supply marks' or the chain totals': the load writes their tables
 * too, and would wait on the lock first.
 */
const ledgerStepStatements: Record<string, { table: string; statement: RegExp }> = {
  'balances and holders': { table: 'address_token_balances', statement: /^DELETE FROM address_token_balances$/ },
  instances: { table: 'token_instances', statement: /^\s*INSERT INTO token_instances/ },
  'address counters': { table: 'address_counters', statement: /^DELETE FROM address_counters$/ },
  contracts: { table: 'addresses', statement: /^DELETE FROM addresses$/ },
  'coin balance marks': { table: 'coin_balance_marks', statement: /^DELETE FROM coin_balance_marks$/ },
};

/**
 * Holds `mode` on `table` from a connection of the test's own, runs `until` (the process reaches the
 * point where it waits on that lock, seen in pg_stat_activity with `statement` in its query), kills
 * the process there, then lets the lock go.
 */
async function killWhileWaiting(db: TestDatabase, child: SextantChild, table: string, mode: string, statement: RegExp): Promise<string> {
  const holder = new pg.Client({ connectionString: db.url });
  await holder.connect();
  try {
    const holderPid = (await holder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    await holder.query('BEGIN');
    await holder.query(`LOCK TABLE ${table} IN ${mode} MODE`);
    const waiting = async () => {
      const { rows } = await db.pool.query<{ query: string }>(
        `SELECT query FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> $1`,
        [holderPid],
      );
      return rows.some((r) => statement.test(r.query));
    };
    await Promise.race([
      waitFor(waiting, `a statement matching ${statement} waiting on ${table}:\n${child.output()}`, { timeoutMs: 180_000, intervalMs: 20 }),
      child.exited.then((code) => {
        throw new Error(`sextant exited with ${code} before waiting on ${table}:\n${child.output()}`);
      }),
    ]);
    const code = await child.kill();
    assert.equal(code, null);
    return `waiting on ${table}`;
  } finally {
    await holder.query('ROLLBACK').catch(() => undefined);
    await holder.end();
  }
}

before(async () => {
  const chain = await startScenarioChain(EXTRA_BLOCKS);
  ({ anvil, head } = chain);
  const db = await newDatabase();
  await indexUntilSettled(db, false);
  reference = await snapshotDatabase(db.pool);
  referenceIndexes = await indexDefinitions(db.pool);
});

after(async () => {
  for (const db of databases) await db.drop();
  await anvil?.stop();
});

test('SIGKILL in the load and in each phase of the switch, then a run to the end, leaves the database of a usual index', async (t) => {
  const random = seededRandom(20261124);
  const db = await newDatabase();
  const total = Number(head) + 1;
  const moments: string[] = [];
  const run = () => spawnSextant(['index'], indexEnv(db, true));

  // In the load: twice, each at a random number of blocks stored.
  for (let kill = 0; kill < 2; kill++) {
    const child = run();
    const stored = await storedBlocks(db);
    const target = stored + Math.ceil(random() * (total - BULK_LOAD_TEST_DISTANCE - stored) * 0.4);
    await Promise.race([
      waitFor(async () => (await storedBlocks(db)) >= target, `${target} blocks`, { timeoutMs: 180_000, intervalMs: 10 }),
      child.exited,
    ]);
    assert.equal(await child.kill(), null, `ended by itself before ${target} blocks:\n${child.output()}`);
    assert.equal((await bulkLoadState(db.pool))?.phase, 'loading');
    moments.push(`loading, at ${await storedBlocks(db)} blocks`);
  }
  // Inside a random step of the ledger: the step's transaction waits on its table.
  const steps = ledgerSteps.filter((s) => s.name in ledgerStepStatements);
  const step = steps[Math.floor(random() * steps.length)]!;
  const { table, statement } = ledgerStepStatements[step.name]!;
  moments.push(`ledger step "${step.name}", ${await killWhileWaiting(db, run(), table, 'ACCESS EXCLUSIVE', statement)}`);
  assert.equal((await bulkLoadState(db.pool))?.phase, 'ledger');
  // Inside the build of a random index: CREATE INDEX waits for writes to its table to end.
  const { rows: dropped } = await db.pool.query<{ name: string; table: string }>(
    `SELECT d.name, substring(d.definition FROM ' ON public\\.(\\w+) ') AS table FROM bulk_load_dropped_indexes d ORDER BY d.name`,
  );
  const index = dropped[Math.floor(random() * dropped.length)]!;
  moments.push(`building ${index.name}, ${await killWhileWaiting(db, run(), index.table, 'ROW EXCLUSIVE', /^CREATE INDEX/)}`);
  assert.equal((await bulkLoadState(db.pool))?.phase, 'indexes');
  // In the statistics: ANALYZE waits on a table another transaction holds, one whose indexes the switch
  // does not build (CREATE INDEX would wait on it first), and which writes do not wait on.
  moments.push(`statistics, ${await killWhileWaiting(db, run(), 'blocks', 'SHARE UPDATE EXCLUSIVE', /^ANALYZE$/)}`);
  assert.equal((await bulkLoadState(db.pool))?.phase, 'statistics');

  t.diagnostic(`killed ${moments.join('; ')}`);
  await indexUntilSettled(db, true);
  assertSameSnapshot(await snapshotDatabase(db.pool), reference, `after kills ${moments.join('; ')}`);
  assert.deepEqual(await indexDefinitions(db.pool), referenceIndexes, 'every index is back');
});
