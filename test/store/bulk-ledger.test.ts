import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Pool } from 'pg';
import { pino } from 'pino';
import { startTraceStage } from '../../src/indexer/stages/trace-stage.js';
import { type Address, ZERO_ADDRESS } from '../../src/model.js';
import { buildLedger, ledgerSteps } from '../../src/store/bulk-ledger.js';
import { saveTokenMetadata } from '../../src/store/token-metadata.js';
import { inTransaction } from '../../src/store/transaction.js';
import { writeBlockBundles } from '../../src/store/write-blocks.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { assertSameSnapshot, type DatabaseSnapshot, snapshotDatabase } from '../support/database-snapshot.js';
import { runListCheckpointStage } from '../support/list-checkpoint-stage.js';
import { syntheticAddress, syntheticChain } from '../support/synthetic-chain.js';
import { type Move, withTransfers } from '../support/token-moves.js';
import { indexTokenChain, startTokenChain, type TokenChain } from '../support/token-chain.js';
import { waitFor } from '../support/wait.js';

/** What the ledger builds; the base tables (blocks, transactions, token transfers, logs, traces...) stay. */
const ledgerTables = [
  'addresses',
  'tokens',
  'address_token_balances',
  'token_instances',
  'address_counters',
  'chain_totals',
  'coin_balance_marks',
  'contract_code_marks',
  'daily_figures',
  'daily_senders',
  'list_checkpoints',
  'list_tails',
  'list_scan',
];

/** The state of a database after a bulk load: the base rows only. */
async function emptyLedger(pool: Pool): Promise<void> {
  await pool.query(`TRUNCATE ${ledgerTables.join(', ')}`);
}

/** Whose coin balance is to be read: the marks themselves are numbers drawn in the order work ran. */
async function markedAddresses(pool: Pool): Promise<string[]> {
  const { rows } = await pool.query<{ address: string }>("SELECT encode(address, 'hex') AS address FROM coin_balance_marks ORDER BY 1");
  return rows.map((r) => r.address);
}

/** The tokens sent to the metadata stage for their total supply. */
async function supplyMarked(pool: Pool): Promise<string[]> {
  const { rows } = await pool.query<{ address: string }>(
    "SELECT encode(address, 'hex') AS address FROM tokens WHERE supply_mark IS NOT NULL ORDER BY 1",
  );
  return rows.map((r) => r.address);
}

interface Indexed {
  snapshot: DatabaseSnapshot;
  marked: string[];
}

async function record(pool: Pool): Promise<Indexed> {
  await runListCheckpointStage(pool);
  return { snapshot: await snapshotDatabase(pool), marked: await markedAddresses(pool) };
}

async function assertLedgerAsIndexed(pool: Pool, indexed: Indexed, context: string): Promise<void> {
  assertSameSnapshot(await snapshotDatabase(pool), indexed.snapshot, context);
  assert.deepEqual(await markedAddresses(pool), indexed.marked, `${context}: the addresses marked for a coin balance read`);
}

let chain: TokenChain;
let tokenDb: TestDatabase;
let syntheticDb: TestDatabase;
let tokenChainIndexed: Indexed;
let syntheticIndexed: Indexed;

/** Traces every indexed block, as the trace stage does beside the indexer. */
async function traceEverything(): Promise<void> {
  const stage = startTraceStage({
    pool: tokenDb.pool,
    client: chain.client,
    traceMethod: 'trace_block',
    logger: pino({ level: 'silent' }),
    batchSize: 3,
    concurrency: 2,
    pollIntervalMs: 20,
    backoff: { initialMs: 10, maxMs: 100 },
  });
  const untraced = async () => (await tokenDb.pool.query('SELECT 1 FROM blocks WHERE consensus AND traced_at IS NULL')).rowCount;
  await waitFor(async () => (await untraced()) === 0, 'every block traced');
  await stage.stop();
}

const alice = syntheticAddress('alice');
const bob = syntheticAddress('bob');
const carol = syntheticAddress('carol');
const hybrid = syntheticAddress('hybrid');
const coin = syntheticAddress('coin');
const art = syntheticAddress('art');
const items = syntheticAddress('items');
const mixed = syntheticAddress('mixed');

/**
 * Blocks whose transfers the per-batch ledger gets right only across batches: a contract with both
 * kinds of Transfer (in one block, typed ERC-404 by the decoder, and in blocks apart), a contract with
 * ERC-20 and ERC-1155 transfers (the ERC-20 one written first), pairs whose
 * transfers net to zero, a transfer to oneself, an NFT moved twice in one block (the last time too),
 * an ERC-1155 batch that lists an id twice, mints and burns.
 */
const moves: Move[][] = [
  [
    [hybrid, 'ERC-20', ZERO_ADDRESS, alice, 1000n, null, 0, 0],
    [art, 'ERC-721', ZERO_ADDRESS, alice, 1n, 1n, 1, 0],
    [items, 'ERC-1155', ZERO_ADDRESS, alice, 5n, 7n, 2, 0],
    [items, 'ERC-1155', ZERO_ADDRESS, alice, 3n, 7n, 2, 1],
    [mixed, 'ERC-1155', ZERO_ADDRESS, alice, 2n, 9n, 3, 0],
  ],
  [
    [hybrid, 'ERC-721', ZERO_ADDRESS, bob, 1n, 40n, 0, 0],
    [coin, 'ERC-20', alice, bob, 0n, null, 1, 0],
    [art, 'ERC-721', alice, bob, 1n, 1n, 2, 0],
    [art, 'ERC-721', bob, carol, 1n, 1n, 3, 0],
  ],
  [
    [coin, 'ERC-20', bob, carol, 25n, null, 0, 0],
    [coin, 'ERC-20', carol, bob, 25n, null, 1, 0],
    [items, 'ERC-1155', alice, bob, 8n, 7n, 2, 0],
    [coin, 'ERC-20', bob, bob, 5n, null, 3, 0],
  ],
  [
    [hybrid, 'ERC-404', alice, carol, 10n, null, 0, 0],
    [hybrid, 'ERC-404', bob, carol, 1n, 40n, 1, 0],
    [art, 'ERC-721', carol, alice, 1n, 1n, 2, 0],
  ],
  [
    [hybrid, 'ERC-20', carol, ZERO_ADDRESS, 10n, null, 0, 0],
    [items, 'ERC-1155', bob, ZERO_ADDRESS, 8n, 7n, 1, 0],
    [art, 'ERC-721', alice, bob, 1n, 1n, 2, 0],
    [art, 'ERC-721', bob, carol, 1n, 1n, 3, 0],
    [mixed, 'ERC-20', alice, bob, 4n, null, 4, 0],
  ],
];

before(async () => {
  chain = await startTokenChain();
  tokenDb = await createTestDatabase();
  await indexTokenChain(chain, tokenDb);
  await traceEverything();
  tokenChainIndexed = await record(tokenDb.pool);

  syntheticDb = await createTestDatabase();
  const bundles = withTransfers(syntheticChain({ from: 1n, to: 5n, transactionsPerBlock: (n) => Number(n % 3n) + 1 }), moves);
  // Batches out of order, as concurrent writers commit them.
  for (const batch of [bundles.slice(3), bundles.slice(0, 1), bundles.slice(1, 3)]) await writeBlockBundles(syntheticDb.pool, batch);
  await saveTokenMetadata(syntheticDb.pool, new Map([[coin, { name: 'Coin', symbol: 'C', decimals: 18n, totalSupply: null }]]));
  syntheticIndexed = await record(syntheticDb.pool);
});

after(async () => {
  await tokenDb?.drop();
  await syntheticDb?.drop();
  await chain?.anvil.stop();
});

test('the ledger built from the base tables equals, row for row, the one the indexer, the trace stage and the checkpoint stage kept', async () => {
  const { rows } = await tokenDb.pool.query<{ n: number }>(
    `SELECT (SELECT count(*) FROM internal_transactions)::int + (SELECT count(*) FROM token_transfers)::int AS n`,
  );
  assert.ok(rows[0]!.n > 0, 'the chain has traces and transfers to build from');
  await emptyLedger(tokenDb.pool);
  const steps: string[] = [];
  await buildLedger(tokenDb.pool, ({ name }) => {
    steps.push(name);
  });
  assert.deepEqual(
    steps,
    ledgerSteps.map((s) => s.name),
  );
  await assertLedgerAsIndexed(tokenDb.pool, tokenChainIndexed, 'token chain');
  assert.notDeepEqual(await supplyMarked(tokenDb.pool), [], 'some token minted or burnt');
});

test('ERC-404 contracts, a contract with ERC-20 and ERC-1155 transfers, balances that net to zero, owners and id counts come out as batches written out of order left them', async () => {
  const typeOf = async (token: Address) =>
    (await syntheticDb.pool.query<{ type: string }>('SELECT type FROM tokens WHERE address = $1', [Buffer.from(token.slice(2), 'hex')]))
      .rows[0]?.type;
  assert.equal(await typeOf(hybrid), 'ERC-404');
  assert.equal(await typeOf(mixed), 'ERC-1155');
  await emptyLedger(syntheticDb.pool);
  await buildLedger(syntheticDb.pool);
  const rebuilt = await snapshotDatabase(syntheticDb.pool);
  const names = (snapshot: DatabaseSnapshot) => snapshot.address_token_balances!.rows.filter((r) => r.includes('Coin')).length;
  assert.equal(names(rebuilt), 0, 'no balance row names a token whose name is not read yet');
  assert.ok(names(syntheticIndexed.snapshot) > 0);
  // The token names are the metadata stage's: they come back with it, not from the base tables.
  await saveTokenMetadata(syntheticDb.pool, new Map([[coin, { name: 'Coin', symbol: 'C', decimals: 18n, totalSupply: null }]]));
  await assertLedgerAsIndexed(syntheticDb.pool, syntheticIndexed, 'synthetic chain');
  assert.deepEqual(await supplyMarked(syntheticDb.pool), [hybrid, art].map((a) => a.slice(2)).sort());
});

test('a step cut short or run again leaves the same ledger, and a build resumes at any step', async () => {
  for (const [resumeAt, step] of ledgerSteps.entries()) {
    await emptyLedger(tokenDb.pool);
    for (const done of ledgerSteps.slice(0, resumeAt)) await inTransaction(tokenDb.pool, (client) => done.run(client));
    // A crash inside the step: its transaction never commits.
    await inTransaction(tokenDb.pool, async (client) => {
      await step.run(client);
      throw new Error('crash');
    }).catch((error: Error) => assert.equal(error.message, 'crash'));
    for (const rest of ledgerSteps.slice(resumeAt)) await inTransaction(tokenDb.pool, (client) => rest.run(client));
    // Run again over its own result.
    await inTransaction(tokenDb.pool, (client) => step.run(client));
    await assertLedgerAsIndexed(tokenDb.pool, tokenChainIndexed, `resumed at step ${resumeAt} (${step.name})`);
  }
});

test('building over a whole ledger keeps the token names the metadata stage read', async () => {
  await buildLedger(syntheticDb.pool);
  await assertLedgerAsIndexed(syntheticDb.pool, syntheticIndexed, 'built twice');
});
