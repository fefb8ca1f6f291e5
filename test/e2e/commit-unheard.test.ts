import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { AnvilNode } from '../../src/demo/anvil.js';
import { startCommitCuttingProxy, type Transaction } from '../support/commit-cutting-proxy.js';
import { assertSameSnapshot, indexDefinitions, snapshotDatabase, type DatabaseSnapshot } from '../support/database-snapshot.js';
import { createTestDatabase, testServerUrl, type TestDatabase } from '../support/database.js';
import { bulkLoadEnv, indexToTheEnd } from '../support/bulk-load-runs.js';
import { startScenarioChain } from '../support/scenario-chain.js';

// A database that commits a transaction and loses the connection before its answer reaches Sextant
// (a server stopped at once, a network cut): Sextant cannot tell whether the work is in, and tries it
// again. Each kind of write transaction Sextant makes, told apart by its first statements, has the
// answer to its first commit lost, while `sextant start` indexes a chain to its end: the process lives
// on, and the database ends as a run without the fault leaves it.

const EXTRA_BLOCKS = 120;

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

/** A write transaction's kind: its first three statements (their texts hold no values, only parameters). */
const kindOf = (transaction: Transaction): string => transaction.slice(1, 4).join(' | ');

/**
 * Indexes the chain through a proxy that loses the answer to the first commit of each kind of write
 * transaction (the migrations aside: Sextant applies them before it starts, and stops if it cannot),
 * and checks the database against the reference. Returns the kinds cut.
 */
async function indexLosingCommits(bulk: boolean): Promise<string[]> {
  const db = await newDatabase();
  const server = new URL(testServerUrl);
  const cutKinds = new Set<string>();
  const proxy = await startCommitCuttingProxy({
    host: server.hostname,
    port: Number(server.port || 5432),
    cut(transaction) {
      const kind = kindOf(transaction);
      if (transaction.some((statement) => statement.includes('schema_migrations')) || cutKinds.has(kind)) return false;
      cutKinds.add(kind);
      return true;
    },
  });
  try {
    const throughProxy = new URL(db.url);
    throughProxy.host = proxy.address;
    await indexToTheEnd(db.pool, head, bulkLoadEnv(throughProxy.href, { anvil, head }, bulk));
  } finally {
    await proxy.close();
  }
  assert.equal(proxy.cuts.length, cutKinds.size, 'each commit picked was cut');
  assertSameSnapshot(await snapshotDatabase(db.pool), reference, `after losing the answers to ${proxy.cuts.length} commits`);
  assert.deepEqual(await indexDefinitions(db.pool), referenceIndexes, 'every index is there');
  return proxy.cuts.map(kindOf);
}

/** A kind, each statement cut short, for the test's report. */
const describeKind = (kind: string): string =>
  kind
    .split(' | ')
    .map((statement) => statement.replace(/\s+/g, ' ').slice(0, 40))
    .join(' | ');

function assertCut(kinds: readonly string[], what: string, statement: RegExp): void {
  assert.ok(
    kinds.some((kind) => statement.test(kind)),
    `the answer to a commit of ${what} was lost (kinds cut: ${kinds.map(describeKind).join('; ')})`,
  );
}

before(async () => {
  const chain = await startScenarioChain(EXTRA_BLOCKS);
  ({ anvil, head } = chain);
  const db = await newDatabase();
  await indexToTheEnd(db.pool, head, bulkLoadEnv(db.url, { anvil, head }, false));
  reference = await snapshotDatabase(db.pool);
  referenceIndexes = await indexDefinitions(db.pool);
});

after(async () => {
  for (const db of databases) await db.drop();
  await anvil?.stop();
});

test('the answer to a commit lost, once for each kind of write of the usual indexing: the process lives on and the database is a clean run’s', async (t) => {
  const kinds = await indexLosingCommits(false);
  t.diagnostic(`${kinds.length} commits cut: ${kinds.map(describeKind).join('; ')}`);
  assertCut(kinds, 'a batch of blocks', /COPY blocks /);
  assertCut(kinds, 'a batch of traces', /traced_at IS NULL/);
  assertCut(kinds, 'token metadata', /^\s*UPDATE tokens SET name/);
});

test('the answer to a commit lost, once for each kind of write of a bulk load and its switch: the process lives on and the database is a clean run’s', async (t) => {
  const kinds = await indexLosingCommits(true);
  t.diagnostic(`${kinds.length} commits cut: ${kinds.map(describeKind).join('; ')}`);
  assertCut(kinds, 'the start of the bulk load', /INSERT INTO bulk_load /);
  assertCut(kinds, 'a batch of blocks loaded in bulk', /COPY blocks /);
  assertCut(kinds, 'a step of the ledger', /DELETE FROM bulk_load_ledger_steps/);
  assertCut(kinds, 'an index built again', /DELETE FROM bulk_load_dropped_indexes/);
  assertCut(kinds, 'the end of the bulk load', /^ANALYZE/);
});
