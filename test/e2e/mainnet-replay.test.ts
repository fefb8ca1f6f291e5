import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { collectEndpointSnapshot, indexedSubjects } from '../support/endpoint-snapshot.js';
import { type ApiClient, apiClient, collectList, getOk } from '../support/http-client.js';
import { waitFor } from '../support/wait.js';
import {
  expectedMainnetBlock,
  expectedMainnetTransactionsWithSignatures,
  expectedMainnetWithdrawals,
  servedTransactionFields,
} from '../support/mainnet-expectations.js';
import { loadMainnetBlock18000000, loadMainnetBlock18000000Recordings } from '../support/mainnet-fixtures.js';
import { startReplayNode, type ReplayNode } from '../support/replay-node.js';
import { startSextant, type RunningSextant } from '../support/sextant-process.js';

// `sextant start` against a node that serves block 18,000,000 and its receipts and refuses every
// other method, as a pruned node would. Every expected value is computed from the recording, in
// test/support/mainnet-expectations.ts.

const { block } = loadMainnetBlock18000000();

let node: ReplayNode;
let db: TestDatabase;
let sextant: RunningSextant;
let api: ApiClient;

before(async () => {
  node = await startReplayNode(loadMainnetBlock18000000Recordings());
  db = await createTestDatabase({ migrated: false });
  sextant = await startSextant({
    ETHEREUM_JSONRPC_HTTP_URL: node.url,
    DATABASE_URL: db.url,
    FIRST_BLOCK: '18000000',
    LAST_BLOCK: '18000000',
    INDEXER_DISABLE_INTERNAL_TRANSACTIONS_FETCHER: 'true',
  });
  api = apiClient(sextant.baseUrl);
  // `start` loads its signature database beside the indexing: the methods are named once it is in.
  await waitFor(async () => (await db.pool.query('SELECT 1 FROM signature_sources')).rowCount === 1, 'the signature database is loaded', {
    timeoutMs: 120_000,
  });
});

const expected = expectedMainnetTransactionsWithSignatures();
after(async () => {
  assert.equal(await sextant.stop(), 0, 'a clean exit on SIGTERM');
  await node.stop();
  await db.drop();
});

test('E9 serves the 16 withdrawals of the block in wei, by number and by hash', async () => {
  for (const id of ['18000000', block.hash]) {
    const body = await getOk(api, `/api/v2/blocks/${id}/withdrawals`);
    assert.equal(body.next_page_params, null);
    assert.deepEqual(body.items, expectedMainnetWithdrawals);
    for (const item of body.items) {
      assert.ok(!('block_number' in item) && !('timestamp' in item), 'E9 items omit block_number and timestamp');
    }
  }
});

test('E5 serves the block under its miner with the recorded values and the fee sums', async () => {
  const body = await getOk(api, `/api/v2/addresses/${block.miner}/blocks-validated`);
  assert.equal(body.next_page_params, null);
  assert.equal(body.items.length, 1);
  assert.deepEqual(body.items[0], expectedMainnetBlock);
});

test('E2 serves all 94 transactions over two pages, newest first, with the recorded values', async () => {
  const { items, pageSizes } = await collectList(api, '/api/v2/transactions');
  assert.deepEqual(pageSizes, [50, 44]);
  assert.equal(items.length, 94);
  assert.deepEqual(
    items.map((t) => t.position),
    block.transactions.map((_, i) => 93 - i),
  );
  for (const [i, served] of items.entries()) {
    assert.deepEqual(servedTransactionFields(served), expected[i], `transaction ${served.position}`);
  }
});

test("every answer of every endpoint about block 18,000,000 has the shape of Blockscout's schema", async () => {
  const subjects = await indexedSubjects(db.pool);
  assert.ok(subjects.tokens.length > 10 && subjects.instances.length > 0, 'the block has tokens and NFTs');
  // Each answer is checked as it arrives (test/support/http-client.ts); the snapshot walks every page of every
  // list. The E8 token filter is asked with two tokens only: with every token it is 15,000 requests of one shape.
  const answers = await collectEndpointSnapshot(api, { ...subjects, tokens: subjects.tokens.slice(0, 2) });
  assert.ok(answers.size > 1000, `${answers.size} requests`);
});

test('the node was asked only for what a pruned node serves, and nothing else was needed', () => {
  const methods = new Set(node.requests.map((r) => r.method));
  assert.ok(methods.has('eth_getBlockByNumber') && methods.has('eth_getBlockReceipts'), `methods asked for: ${[...methods].join(', ')}`);
  // INDEXER_DISABLE_INTERNAL_TRANSACTIONS_FETCHER is set: no trace was asked for.
  assert.deepEqual(
    [...methods].filter((m) => m.startsWith('trace_') || m.startsWith('debug_')),
    [],
  );
});
