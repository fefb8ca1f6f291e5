import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createRpcClient } from '../../src/chain/rpc.js';
import { startAnvil, type AnvilNode } from '../../src/demo/anvil.js';
import { startIndexer } from '../../src/indexer/blocks/indexer.js';
import { createTestDatabase } from '../support/database.js';
import { startFaultProxy } from '../support/fault-proxy.js';
import { testIndexerOptions } from '../support/indexer-options.js';

let anvil: AnvilNode;

before(async () => {
  anvil = await startAnvil();
  await createRpcClient({ url: anvil.rpcUrl }).request('anvil_mine', ['0x3c', '0x1']);
});
after(async () => {
  await anvil.stop();
});

test('a node that fails big batches gets smaller ones, and every block is indexed', { timeout: 120_000 }, async () => {
  // Two blocks take four calls (block and receipts each): any request above that fails.
  const proxy = await startFaultProxy({ target: anvil.rpcUrl, seed: 1, overloadedAbove: 4 });
  const db = await createTestDatabase();
  try {
    // No retries inside the client: each failure reaches the indexer, which must shrink its batches.
    const client = createRpcClient({ url: proxy.url, retryCount: 0 });
    const head = BigInt(await createRpcClient({ url: anvil.rpcUrl }).request<string>('eth_blockNumber', []));
    const indexer = startIndexer(await testIndexerOptions(db, client, head, { batchSize: 10, concurrency: 2 }));
    const sizes = new Set<number>();
    const watch = setInterval(() => sizes.add(indexer.status.batchSize), 5);
    await indexer.done;
    clearInterval(watch);
    assert.ok(Math.min(...sizes) <= 2, `the batch size went down to ${Math.min(...sizes)}`);
    const { rows } = await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM blocks WHERE consensus');
    assert.equal(rows[0]!.n, Number(head) + 1);
  } finally {
    await proxy.stop();
    await db.drop();
  }
});
