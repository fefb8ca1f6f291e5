import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createRpcClient, type RpcClient } from '../../src/chain/rpc.js';
import { startAnvil, type AnvilNode } from '../../src/demo/anvil.js';
import { startIndexer, type IndexerOptions } from '../../src/indexer/blocks/indexer.js';
import { retractBlocksFrom } from '../../src/store/retract-blocks.js';
import { bytea, createTestDatabase, type TestDatabase } from '../support/database.js';
import { testIndexerOptions } from '../support/indexer-options.js';
import { startSextant } from '../support/sextant-process.js';
import { waitFor } from '../support/wait.js';

let anvil: AnvilNode;
let client: RpcClient;
let accounts: string[];

before(async () => {
  anvil = await startAnvil();
  client = createRpcClient({ url: anvil.rpcUrl });
  accounts = await client.request<string[]>('eth_accounts', []);
});
after(async () => {
  await anvil.stop();
});

/** Mines one block per transfer, each of a different value so that a re-mined block gets a new hash. */
async function mineTransfers(count: number, valueBase: number): Promise<string[]> {
  const hashes: string[] = [];
  for (let i = 0; i < count; i++) {
    const hash = await client.request<string>('eth_sendTransaction', [
      { from: accounts[0], to: accounts[1], value: `0x${(valueBase + i).toString(16)}` },
    ]);
    // The answer can come before the block is sealed: the next step must see it mined.
    await waitFor(async () => (await client.request<unknown>('eth_getTransactionReceipt', [hash])) !== null, `${hash} is mined`, {
      timeoutMs: 15_000,
    });
    hashes.push(hash);
  }
  return hashes;
}

async function headNumber(): Promise<bigint> {
  return BigInt(await client.request<string>('eth_blockNumber', []));
}

const isIndexed = (db: TestDatabase, transactionHash: string) => async () =>
  ((await db.pool.query('SELECT 1 FROM transactions WHERE hash = $1', [bytea(transactionHash)])).rowCount ?? 0) === 1;

/** The stored consensus chain and its transactions against the node's, block by block up to `head`. */
async function assertSameChain(db: TestDatabase, head: bigint): Promise<void> {
  const stored = await db.pool.query<{ number: string; hash: string; transactions: string[] }>(
    `SELECT b.number::text, '0x' || encode(b.hash, 'hex') AS hash,
            ARRAY(SELECT '0x' || encode(t.hash, 'hex') FROM transactions t WHERE t.block_hash = b.hash ORDER BY t.index) AS transactions
       FROM blocks b WHERE b.consensus ORDER BY b.number`,
  );
  const numbers = Array.from({ length: Number(head) + 1 }, (_, n) => n);
  const blocks = await client.batch<{ hash: string; transactions: string[] }>(
    numbers.map((n) => ({ method: 'eth_getBlockByNumber', params: [`0x${n.toString(16)}`, false] })),
  );
  const expected = blocks.map((block, n) => ({ number: n.toString(), hash: block.hash, transactions: block.transactions }));
  assert.deepEqual(stored.rows, expected);
  const orphaned = await db.pool.query(
    'SELECT count(*)::int AS n FROM transactions t JOIN blocks b ON b.hash = t.block_hash WHERE NOT b.consensus',
  );
  assert.equal(orphaned.rows[0].n, 0, 'no transaction of a replaced block is left');
}

async function withIndexer(
  db: TestDatabase,
  overrides: Partial<IndexerOptions>,
  body: (status: ReturnType<typeof startIndexer>) => Promise<void>,
) {
  const indexer = startIndexer(await testIndexerOptions(db, client, null, overrides));
  try {
    await body(indexer);
  } finally {
    await indexer.stop();
  }
}

test('new heads over the websocket wake the indexer at once, long before the next poll', async () => {
  await mineTransfers(3, 1);
  const db = await createTestDatabase();
  try {
    await withIndexer(db, { wsUrl: anvil.wsUrl, pollIntervalMs: 120_000 }, async (indexer) => {
      await indexer.caughtUp;
      assert.equal(indexer.status.newHeads, 'websocket');
      for (const hash of await mineTransfers(2, 100)) await waitFor(isIndexed(db, hash), `${hash} is indexed`, { timeoutMs: 20_000 });
      await assertSameChain(db, await headNumber());
    });
  } finally {
    await db.drop();
  }
});

test('without a usable websocket the indexer says so and polls', async () => {
  const db = await createTestDatabase();
  try {
    await withIndexer(db, { wsUrl: 'ws://127.0.0.1:9/', pollIntervalMs: 50 }, async (indexer) => {
      await indexer.caughtUp;
      assert.equal(indexer.status.newHeads, 'polling');
      const [hash] = await mineTransfers(1, 200);
      await waitFor(isIndexed(db, hash!), `${hash} is indexed`, { timeoutMs: 15_000 });
    });
  } finally {
    await db.drop();
  }
});

for (const variant of ['the tip', 'a block below a gap'] as const) {
  test(`a run up to LAST_BLOCK replaces blocks a reorg changed since the last run (stale ${variant})`, async () => {
    await mineTransfers(2, 300);
    const snapshot = await client.request<string>('evm_snapshot', []);
    await mineTransfers(4, 400);
    const head = await headNumber();
    const db = await createTestDatabase();
    try {
      await startIndexer(await testIndexerOptions(db, client, head)).done;
      // The node forgets the last four blocks and mines four others at the same heights.
      await client.request('evm_revert', [snapshot]);
      await mineTransfers(4, 500);
      assert.equal(await headNumber(), head);
      // Without the top block, the stored chain is linked but stale below the block the next run fetches.
      if (variant === 'a block below a gap') await retractBlocksFrom(db.pool, head);
      const rerun = startIndexer(await testIndexerOptions(db, client, head));
      await rerun.done;
      assert.equal(rerun.status.phase, 'done');
      await assertSameChain(db, head);
    } finally {
      await db.drop();
    }
  });
}

test('realtime runs beside the catch-up: a new block is indexed before the backlog is done, and nothing is missed', async () => {
  await client.request('anvil_mine', ['0x3e8', '0x1']);
  const db = await createTestDatabase();
  try {
    await withIndexer(db, { wsUrl: anvil.wsUrl, batchSize: 1, concurrency: 1 }, async (indexer) => {
      let caughtUp = false;
      void indexer.caughtUp.then(() => (caughtUp = true));
      await waitFor(async () => indexer.status.blocksIndexed > 0, 'the catch-up has begun', { timeoutMs: 15_000 });
      const [hash] = await mineTransfers(1, 600);
      await waitFor(isIndexed(db, hash!), `${hash} is indexed`, { timeoutMs: 15_000 });
      assert.equal(caughtUp, false, 'the new block came in while the backlog was still being indexed');
      await indexer.caughtUp;
      await assertSameChain(db, await headNumber());
    });
  } finally {
    await db.drop();
  }
});

test('a new head wakes the stages that finish it: its frames and its balances come long before their next poll', async () => {
  const db = await createTestDatabase({ migrated: false });
  // Their rest is 120 s: only a wake from the stored head gets the stages to the new block within the wait.
  const sextant = await startSextant({
    ETHEREUM_JSONRPC_HTTP_URL: anvil.rpcUrl,
    ETHEREUM_JSONRPC_WS_URL: anvil.wsUrl,
    DATABASE_URL: db.url,
    INDEXER_POLL_INTERVAL_MS: '120000',
  });
  try {
    const [hash] = await mineTransfers(1, 700);
    await waitFor(
      async () => {
        const { rows } = await db.pool.query<{ traced: boolean; balance_read: boolean }>(
          `SELECT b.traced_at IS NOT NULL AS traced,
                  EXISTS (SELECT 1 FROM address_current_coin_balances c WHERE c.address = t.to_address AND c.block_number >= t.block_number) AS balance_read
             FROM transactions t JOIN blocks b ON b.hash = t.block_hash WHERE t.hash = $1`,
          [bytea(hash!)],
        );
        return rows[0]?.traced === true && rows[0].balance_read;
      },
      `${hash}'s block is traced and its recipient's balance read at it or later`,
      { timeoutMs: 30_000 },
    );
  } finally {
    assert.equal(await sextant.stop(), 0, 'a clean exit on SIGTERM');
    await db.drop();
  }
});
