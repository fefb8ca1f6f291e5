import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { AnvilNode } from '../../src/demo/anvil.js';
import {
  assertSameSnapshot,
  LATEST_COIN_BALANCES,
  snapshotDatabase,
  unfinishedWork,
  type DatabaseSnapshot,
} from '../support/database-snapshot.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { seededRandom } from '../support/fault-proxy.js';
import { runUntilSettled, spawnSextant } from '../support/sextant-process.js';
import { waitFor } from '../support/wait.js';
import { startScenarioChain } from '../support/scenario-chain.js';

// `sextant index` killed with SIGKILL again and again, wherever it is (starting, migrating, writing
// blocks, writing traces), then run to its end, leaves the database an uninterrupted run leaves.

/** Blocks of one value transfer each, mined after the demo scenario so that indexing takes a while. */
const EXTRA_BLOCKS = 600;
const KILLS = 12;

let anvil: AnvilNode;
let head: bigint;
let reference: DatabaseSnapshot;
const databases: TestDatabase[] = [];

const indexEnv = (db: TestDatabase): Record<string, string> => ({
  DATABASE_URL: db.url,
  ETHEREUM_JSONRPC_HTTP_URL: anvil.rpcUrl,
  LAST_BLOCK: head.toString(),
  // Many small writes, one at a time: more moments to be killed at, and a run that lasts.
  INDEXER_CATCHUP_BLOCKS_BATCH_SIZE: '2',
  INDEXER_CATCHUP_BLOCKS_CONCURRENCY: '1',
  INDEXER_POLL_INTERVAL_MS: '50',
});

async function newDatabase(): Promise<TestDatabase> {
  const db = await createTestDatabase({ migrated: false });
  databases.push(db);
  return db;
}

/** Runs Sextant until every stage is done. */
async function indexToTheEnd(db: TestDatabase): Promise<void> {
  await runUntilSettled(indexEnv(db), () => unfinishedWork(db.pool, head));
}

/** How far indexing got: blocks written and blocks traced (0 while the schema is not there yet). */
async function progress(db: TestDatabase): Promise<{ blocks: number; traced: number }> {
  const schema = await db.pool.query<{ present: boolean }>("SELECT to_regclass('blocks') IS NOT NULL AS present");
  if (!schema.rows[0]!.present) return { blocks: 0, traced: 0 };
  const { rows } = await db.pool.query<{ blocks: number; traced: number }>(
    'SELECT count(*)::int AS blocks, count(traced_at)::int AS traced FROM blocks',
  );
  return rows[0]!;
}

before(async () => {
  const chain = await startScenarioChain(EXTRA_BLOCKS);
  ({ anvil, head } = chain);
  const db = await newDatabase();
  await indexToTheEnd(db);
  reference = await snapshotDatabase(db.pool);
  assert.equal(reference.blocks!.rows.length, Number(head) + 1, 'the uninterrupted run indexed every block');
  // Every address's latest coin balance is the node's at the head: what the runs with kills must also end with.
  const balances = reference[LATEST_COIN_BALANCES]!.rows;
  assert.ok(balances.length > 15, `the coin balances of the demo's addresses are read (${balances.length})`);
  for (const [address, value] of balances) {
    const node = BigInt(await chain.client.request<string>('eth_getBalance', [`0x${address!.slice(2)}`, `0x${head.toString(16)}`]));
    assert.equal(value, node.toString(), `the latest coin balance of 0x${address!.slice(2)}`);
  }
});

after(async () => {
  for (const db of databases) await db.drop();
  await anvil?.stop();
});

test(`${KILLS} kills with SIGKILL at random moments, then a run to the end, leave the database of an uninterrupted run`, async (t) => {
  const random = seededRandom(20260522);
  const db = await newDatabase();
  const total = Number(head) + 1;
  const moments: string[] = [];
  const reached: { blocks: number; traced: number }[] = [];
  for (let kill = 0; kill < KILLS; kill++) {
    const child = spawnSextant(['index'], indexEnv(db));
    const before = await progress(db);
    // The first kills come while the process starts and migrates; then by turns while it writes
    // blocks and while it writes traces, each at a random point of what is left to do.
    let moment: string;
    if (kill < 3) {
      const delay = Math.floor(150 + random() * 1200);
      await Promise.race([new Promise((resolve) => setTimeout(resolve, delay)), child.exited]);
      moment = `${delay} ms after the start`;
    } else {
      const stage = kill % 2 === 1 && before.blocks < total ? 'blocks' : 'traced';
      const target = before[stage] + Math.ceil(random() * Math.max(1, (total - before[stage]) / 3));
      await Promise.race([
        waitFor(async () => (await progress(db))[stage] >= target, `${target} ${stage}`, { timeoutMs: 120_000, intervalMs: 10 }),
        child.exited,
      ]);
      moment = `at ${stage} >= ${target}`;
    }
    const code = await child.kill();
    const after = await progress(db);
    reached.push(after);
    moments.push(`${moment} (${after.blocks} blocks, ${after.traced} traced${code === null ? '' : `, had exited with ${code}`})`);
    assert.equal(code, null, `run ${kill + 1} ended by itself before its kill (${moment}):\n${child.output()}`);
  }
  t.diagnostic(`killed ${moments.join('; ')}`);
  await indexToTheEnd(db);
  assertSameSnapshot(await snapshotDatabase(db.pool), reference, `after kills ${moments.join('; ')}`);
  assert.ok(
    reached.some(({ blocks }) => blocks > 0 && blocks < total),
    `no kill came while blocks were written:\n${moments.join('\n')}`,
  );
  assert.ok(
    reached.some(({ blocks, traced }) => traced > 0 && traced < blocks),
    `no kill came while traces were written:\n${moments.join('\n')}`,
  );
});
