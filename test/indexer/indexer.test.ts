import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createRpcClient, type RpcClient } from '../../src/chain/rpc.js';
import { startAnvil, type AnvilNode } from '../../src/demo/anvil.js';
import { runScenario, type ScenarioResult } from '../../src/demo/scenario.js';
import { startIndexer, type IndexerOptions } from '../../src/indexer/blocks/indexer.js';
import { bytea, createTestDatabase, type TestDatabase } from '../support/database.js';
import { testIndexerOptions } from '../support/indexer-options.js';
import { waitFor } from '../support/wait.js';

let anvil: AnvilNode;
let client: RpcClient;
let scenario: ScenarioResult;
let head: bigint;

before(async () => {
  anvil = await startAnvil();
  scenario = await runScenario(anvil.rpcUrl);
  client = createRpcClient({ url: anvil.rpcUrl });
  head = BigInt(await client.request<string>('eth_blockNumber', []));
});
after(async () => {
  await anvil.stop();
});

const indexerOptions = (db: TestDatabase, overrides: Partial<IndexerOptions> = {}): Promise<IndexerOptions> =>
  testIndexerOptions(db, client, head, overrides);

/** What the node says about every block and transaction, to compare with the database. */
async function nodeChain(
  upTo: bigint,
): Promise<{ blocks: Map<bigint, string>; transactions: Map<string, { block: bigint; status: string }> }> {
  const blocks = new Map<bigint, string>();
  const transactions = new Map<string, { block: bigint; status: string }>();
  for (let n = 0n; n <= upTo; n++) {
    const block = await client.request<{ hash: string; transactions: string[] }>('eth_getBlockByNumber', [`0x${n.toString(16)}`, false]);
    blocks.set(n, block.hash);
    const receipts = await client.request<{ transactionHash: string; status: string }[]>('eth_getBlockReceipts', [`0x${n.toString(16)}`]);
    for (const r of receipts) transactions.set(r.transactionHash, { block: n, status: r.status });
  }
  return { blocks, transactions };
}

async function databaseChain(db: TestDatabase) {
  const blocks = await db.pool.query<{ number: string; hash: string }>(
    "SELECT number::text, '0x' || encode(hash, 'hex') AS hash FROM blocks WHERE consensus ORDER BY number",
  );
  const transactions = await db.pool.query<{ hash: string; block_number: string; status: number }>(
    "SELECT '0x' || encode(hash, 'hex') AS hash, block_number::text, status FROM transactions",
  );
  return {
    blocks: new Map(blocks.rows.map((r) => [BigInt(r.number), r.hash])),
    transactions: new Map(transactions.rows.map((r) => [r.hash, { block: BigInt(r.block_number), status: `0x${r.status}` }])),
  };
}

test('indexes every block and transaction of the demo chain, exactly once, with receipt statuses', async () => {
  const db = await createTestDatabase();
  try {
    const indexer = startIndexer(await indexerOptions(db));
    await indexer.done;
    assert.equal(indexer.status.phase, 'done');
    const expected = await nodeChain(head);
    const actual = await databaseChain(db);
    assert.deepEqual(actual.blocks, expected.blocks);
    assert.deepEqual(actual.transactions, expected.transactions);
    assert.deepEqual(
      scenario.transactions.filter((t) => !actual.transactions.has(t.hash)).map((t) => t.label),
      [],
      'scenario transactions not indexed',
    );
    assert.equal(actual.transactions.get(scenario.revertedTxHash)?.status, '0x0');
    const created = await db.pool.query('SELECT count(*)::int AS n FROM transactions WHERE created_contract IS NOT NULL');
    assert.ok(created.rows[0].n >= 4, `the deployments are recorded with their created contracts: ${created.rows[0].n} of at least 4`);
    const contracts = await db.pool.query<{ hash: string }>("SELECT '0x' || encode(hash, 'hex') AS hash FROM addresses WHERE is_contract");
    const known = new Set(contracts.rows.map((r) => r.hash));
    for (const address of [scenario.contracts.erc20, scenario.contracts.erc721, scenario.contracts.erc1155, scenario.contracts.caller]) {
      assert.ok(known.has(address.toLowerCase()), `${address} is known as a contract`);
    }
  } finally {
    await db.drop();
  }
});

test('a stopped indexer resumes where it stopped, without gaps or duplicates', async () => {
  const db = await createTestDatabase();
  try {
    const partial = startIndexer(await indexerOptions(db, { lastBlock: head / 2n }));
    await partial.done;
    const firstRun = await databaseChain(db);
    assert.equal(firstRun.blocks.size, Number(head / 2n) + 1);
    // A second run over the whole range fills in only what is missing.
    const rest = startIndexer(await indexerOptions(db, { batchSize: 3 }));
    await rest.done;
    assert.equal(rest.status.blocksIndexed, Number(head - head / 2n));
    const actual = await databaseChain(db);
    const expected = await nodeChain(head);
    assert.deepEqual(actual.blocks, expected.blocks);
    assert.deepEqual(actual.transactions, expected.transactions);
  } finally {
    await db.drop();
  }
});

test('follows new blocks once caught up', async () => {
  const db = await createTestDatabase();
  const indexer = startIndexer(await indexerOptions(db, { lastBlock: null }));
  try {
    await indexer.caughtUp;
    assert.equal(indexer.status.phase, 'following');
    const [from, to] = [scenario.accounts.alice, scenario.accounts.bob];
    const hash = await client.request<string>('eth_sendTransaction', [{ from, to, value: '0x1' }]);
    let found = 0;
    await waitFor(
      async () => {
        found = (await db.pool.query('SELECT 1 FROM transactions WHERE hash = $1', [bytea(hash)])).rowCount ?? 0;
        return found > 0;
      },
      `the new transaction ${hash} is indexed`,
      { timeoutMs: 10_000, intervalMs: 50 },
    );
    assert.equal(found, 1, 'the new transaction is indexed once');
  } finally {
    await indexer.stop();
    await db.drop();
  }
});
