import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type pg from 'pg';
import { createRpcClient, type RpcClient } from '../../src/chain/rpc.js';
import { startAnvil, type AnvilNode } from '../../src/demo/anvil.js';
import { type Indexer, startIndexer } from '../../src/indexer/blocks/indexer.js';
import type { Hex } from '../../src/model.js';
import type { Db } from '../../src/store/read/sql.js';
import { type TestDatabase, createTestDatabase } from '../support/database.js';
import { getOk } from '../support/http-client.js';
import { waitForMined } from '../support/mined.js';
import { testIndexerOptions } from '../support/indexer-options.js';
import { waitFor } from '../support/wait.js';
import { type RunningApi, startApi } from './http.js';

// An indexer follows anvil's head; one API shares its answers, fed by the change feed, another
// computes every request. Answers are kept for ten minutes unless a change comes: within the tests'
// waits, only the change feed can replace one.

const keptMs = 600_000;

let anvil: AnvilNode;
let rpc: RpcClient;
let db: TestDatabase;
let indexer: Indexer;
let shared: RunningApi;
let direct: RunningApi;
/** The queries each API has sent to the database. */
const queries = { shared: 0, direct: 0 };

/** The pool, counting the queries sent through it. */
const counted = (pool: pg.Pool, which: keyof typeof queries): Db => ({
  query: (text: string, values?: unknown[]) => {
    queries[which] += 1;
    return pool.query(text, values);
  },
});

/** A transfer, once mined: anvil may answer with its hash before the block that holds it is the head. */
async function sendTransaction(): Promise<string> {
  const [from, to] = await rpc.request<string[]>('eth_accounts', []);
  const hash = await rpc.request<Hex>('eth_sendTransaction', [{ from, to, value: '0x1' }]);
  await waitForMined(rpc, hash);
  return hash;
}

async function nodeHead(): Promise<{ number: number; hash: string }> {
  const block = await rpc.request<{ number: string; hash: string }>('eth_getBlockByNumber', ['latest', false]);
  return { number: Number(block.number), hash: block.hash };
}

const homeBlocks = async (): Promise<{ height: number; hash: string }[]> => getOk(shared, '/api/v2/main-page/blocks');

before(async () => {
  anvil = await startAnvil();
  rpc = createRpcClient({ url: anvil.rpcUrl });
  for (let n = 0; n < 8; n++) await sendTransaction();
  db = await createTestDatabase();
  indexer = startIndexer(await testIndexerOptions(db, rpc, null));
  await indexer.caughtUp;
  shared = await startApi(counted(db.pool, 'shared'), { changeConnection: { connectionString: db.url }, sharedAnswersMaxAgeMs: keptMs });
  direct = await startApi(counted(db.pool, 'direct'));
});

after(async () => {
  await shared?.close();
  await direct?.close();
  await indexer?.stop();
  await db?.drop();
  await anvil?.stop();
});

test('concurrent requests for a shared page wait for one computation, and those after it are answered without a query', async () => {
  const path = '/api/v2/main-page/transactions';
  queries.direct = 0;
  const expected = await direct.get(path);
  const oneComputation = queries.direct;
  assert.ok(oneComputation > 0, 'the page reads the database');

  queries.shared = 0;
  const answers = await Promise.all(Array.from({ length: 24 }, () => shared.get(path, { 'accept-encoding': 'br' })));
  assert.equal(queries.shared, oneComputation, '24 concurrent requests, the queries of one');
  for (const answer of answers) {
    assert.equal(answer.status, 200);
    assert.equal(answer.text, expected.text, 'the answer a request computed alone');
    assert.equal(answer.headers.get('etag'), expected.headers.get('etag'), 'the ETag of the same JSON');
    assert.equal(answer.headers.get('content-encoding'), 'br');
    assert.match(answer.headers.get('vary') ?? '', /accept-encoding/);
  }

  queries.shared = 0;
  const again = await Promise.all([
    shared.get(path, { 'accept-encoding': 'gzip' }),
    shared.get(path),
    fetch(shared.base + path, { headers: { 'if-none-match': expected.headers.get('etag')! } }),
  ]);
  assert.equal(queries.shared, 0, 'kept: no query');
  assert.equal(again[0]!.headers.get('content-encoding'), 'gzip');
  assert.equal(again[0]!.text, expected.text);
  assert.equal(again[1]!.text, expected.text);
  assert.equal(again[2]!.status, 304);
  const kept = /^sextant_shared_answers_bytes (\d+)$/m.exec(await (await fetch(shared.base + '/metrics')).text());
  assert.ok(Number(kept?.[1]) > expected.text.length, `/metrics counts the kept bodies: ${kept?.[0]}`);

  // A later page, or a filter, is answered apart.
  queries.shared = 0;
  await getOk(shared, '/api/v2/transactions?type=coin_transfer');
  assert.ok(queries.shared > 0, 'a filtered page is computed');
});

test('every shared page names the new head as soon as it is indexed, with no block after it', async () => {
  const pages = [
    '/api/v2/main-page/blocks',
    '/api/v2/main-page/transactions',
    '/api/v2/transactions',
    '/api/v2/transactions?filter=validated',
    '/api/v2/blocks',
    '/api/v2/blocks?type=block',
    '/api/v2/stats',
    '/api/v2/main-page/indexing-status',
  ];
  const before = new Map(await Promise.all(pages.map(async (path) => [path, (await shared.get(path)).text] as const)));
  const hash = await sendTransaction();
  const head = await nodeHead();
  const named: Record<string, (body: any) => boolean> = {
    '/api/v2/main-page/blocks': (body) => body[0].height === head.number && body[0].hash === head.hash,
    '/api/v2/main-page/transactions': (body) => body[0].hash === hash,
    '/api/v2/transactions': (body) => body.items[0].hash === hash,
    '/api/v2/transactions?filter=validated': (body) => body.items[0].hash === hash,
    '/api/v2/blocks': (body) => body.items[0].height === head.number,
    '/api/v2/blocks?type=block': (body) => body.items[0].height === head.number,
    '/api/v2/stats': (body) => Number(body.total_transactions) === 9,
  };
  for (const [path, shows] of Object.entries(named)) {
    await waitFor(async () => shows((await getOk(shared, path)) as unknown), `${path} shows block ${head.number}`, { timeoutMs: 30_000 });
    assert.equal(await nodeHead().then((h) => h.number), head.number, 'no block was mined meanwhile');
  }
  for (const path of Object.keys(named)) assert.notEqual((await shared.get(path)).text, before.get(path), path);
  assert.equal((await getOk(shared, '/api/v2/stats')).total_blocks, (await getOk(direct, '/api/v2/stats')).total_blocks);
  // The indexing status names no head: it is kept, and answers as one computed alone does.
  assert.equal((await shared.get('/api/v2/main-page/indexing-status')).text, (await direct.get('/api/v2/main-page/indexing-status')).text);
});

test('a reorg replaces the shared answers that show the blocks it took back', async () => {
  const snapshot = await rpc.request<string>('evm_snapshot', []);
  await sendTransaction();
  const lost = await nodeHead();
  await waitFor(async () => (await homeBlocks())[0]!.hash === lost.hash, `the home page shows block ${lost.number}`, { timeoutMs: 30_000 });
  const lostAnswer = (await shared.get('/api/v2/blocks')).text;

  assert.equal(await rpc.request<boolean>('evm_revert', [snapshot]), true);
  // The same height, another block: the node's branch is as long as the lost one.
  await rpc.request('evm_mine', []);
  const replacing = await nodeHead();
  assert.equal(replacing.number, lost.number);
  assert.notEqual(replacing.hash, lost.hash);
  await waitFor(async () => (await homeBlocks())[0]!.hash === replacing.hash, `the home page shows the node's block ${lost.number}`, {
    timeoutMs: 30_000,
  });
  const blocks = await getOk(shared, '/api/v2/blocks');
  assert.equal(blocks.items[0].hash, replacing.hash);
  assert.ok(!(await homeBlocks()).some((b) => b.hash === lost.hash), 'the lost block is gone from the home page');
  assert.notEqual(JSON.stringify(blocks), lostAnswer);
  assert.equal((await shared.get('/api/v2/blocks')).text, (await direct.get('/api/v2/blocks')).text, 'as a request computed alone');
});
