import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, before, test } from 'node:test';
import type pg from 'pg';
import { createRpcClient, type RpcClient } from '../../src/chain/rpc.js';
import { startAnvil, type AnvilNode } from '../../src/demo/anvil.js';
import { type Indexer, startIndexer } from '../../src/indexer/blocks/indexer.js';
import type { Hex } from '../../src/model.js';
import type { BulkLoadState } from '../../src/store/read/bulk-load.js';
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

/** The requests an API has answered with a kept answer before routing them, by its /metrics. */
async function answeredEarly(api: RunningApi): Promise<number> {
  const line = /^sextant_http_requests_answered_early_total (\d+)$/m.exec(await (await fetch(api.base + '/metrics')).text());
  assert.ok(line !== null, '/metrics counts the answers sent early');
  return Number(line[1]);
}

/** An answer's headers, but those Node writes on every response. */
const answerHeaders = (headers: Headers): Record<string, string> =>
  Object.fromEntries([...headers].filter(([name]) => !['date', 'connection', 'keep-alive'].includes(name)));

/** A GET with a body, which no route of the API takes. */
function getWithBody(api: RunningApi, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      api.base + path,
      { method: 'GET', headers: { 'content-type': 'application/json', 'content-length': '2' } },
      (response) => {
        response.resume();
        resolve(response.statusCode!);
      },
    );
    request.on('error', reject);
    request.end('{}');
  });
}

test('a kept answer is sent before routing, with the headers a routed request of the same URL and shape was given', async () => {
  const pages = ['/api/v2/stats', '/api/v2/main-page/blocks', '/api/v2/blocks?type=block', '/api/v2/transactions', '/api/v2/tokens'];
  const shapes: Record<string, string>[] = [
    {},
    { 'accept-encoding': 'br' },
    { 'accept-encoding': 'gzip, deflate, br, zstd' },
    { 'updated-gas-oracle': 'true', 'x-no-compression': '1' },
  ];
  for (const [p, path] of pages.entries()) {
    for (const [s, shape] of shapes.entries()) {
      // An origin of its own: no request of this shape was answered before, so the first is routed.
      const headers = { ...shape, origin: `https://${p}-${s}.example` };
      const before = await answeredEarly(shared);
      const routed = await shared.get(path, headers);
      assert.equal(await answeredEarly(shared), before, `${path} ${JSON.stringify(shape)}: the first request is routed`);
      const early = await shared.get(path, headers);
      assert.equal(await answeredEarly(shared), before + 1, `${path} ${JSON.stringify(shape)}: the next is answered early`);
      assert.equal(early.status, 200);
      assert.equal(early.text, routed.text, path);
      assert.deepEqual(answerHeaders(early.headers), answerHeaders(routed.headers), `${path} ${JSON.stringify(shape)}`);
    }
  }

  // What a hook before the route answers otherwise is routed: a revalidation, a HEAD, a body.
  const path = '/api/v2/main-page/blocks';
  const kept = await shared.get(path);
  const before = await answeredEarly(shared);
  const revalidated = await fetch(shared.base + path, { headers: { 'if-none-match': kept.headers.get('etag')! } });
  assert.equal(revalidated.status, 304);
  assert.equal((await fetch(shared.base + path, { method: 'HEAD' })).status, 200);
  assert.equal(await getWithBody(shared, path), 413);
  assert.equal(await answeredEarly(shared), before, 'none of them answered early');
});

test('answers are sent early from the origins CORS allows as it would, never under a rate limit, nor while a bulk load refuses the page', async () => {
  let bulkLoad: BulkLoadState | null = null;
  const sharing = { changeConnection: { connectionString: db.url }, sharedAnswersMaxAgeMs: keptMs };
  const listed = await startApi(db.pool, { ...sharing, corsOrigins: ['https://allowed.example'], bulkLoad: () => bulkLoad });
  const limited = await startApi(db.pool, { ...sharing, rateLimit: { max: 1000, intervalMs: 60_000, allowList: [] } });
  try {
    const path = '/api/v2/main-page/blocks';
    const allowed = 'https://allowed.example';
    // The change feed is heard a moment after the start: answers are shared, and sent early, from then on.
    await waitFor(
      async () => {
        await listed.get(path, { origin: allowed });
        return (await answeredEarly(listed)) > 0;
      },
      'an answer sent early',
      { timeoutMs: 30_000 },
    );
    for (const origin of [allowed, 'https://other.example']) {
      const before = await answeredEarly(listed);
      const first = await listed.get(path, { origin });
      const second = await listed.get(path, { origin });
      // The allowed origin's shape was answered already; the other's first request is routed.
      assert.equal(await answeredEarly(listed), before + (origin === allowed ? 2 : 1), origin);
      assert.deepEqual(answerHeaders(second.headers), answerHeaders(first.headers), origin);
      assert.equal(second.headers.get('access-control-allow-origin'), origin === allowed ? origin : null, origin);
    }
    const before = await answeredEarly(listed);
    bulkLoad = { phase: 'loading', firstBlock: 0n, lastBlock: 100n, stepsDone: 0, stepsTotal: null };
    assert.equal((await listed.get(path, { origin: 'https://allowed.example' })).status, 503, 'the bulk load guard answers');
    bulkLoad = null;
    assert.equal((await listed.get(path, { origin: 'https://allowed.example' })).status, 200);
    assert.equal(await answeredEarly(listed), before + 1, 'only the request after the bulk load was answered early');

    const remaining: string[] = [];
    for (let n = 0; n < 4; n++) remaining.push((await limited.get(path)).headers.get('x-ratelimit-remaining')!);
    assert.deepEqual(remaining, ['999', '998', '997', '996'], 'every request is counted');
    assert.equal(await answeredEarly(limited), 0);
  } finally {
    await listed.close();
    await limited.close();
  }
});

test('an API closes while a client keeps asking for a kept answer on its one connection', async () => {
  const closing = await startApi(db.pool, { changeConnection: { connectionString: db.url }, sharedAnswersMaxAgeMs: keptMs });
  const path = '/api/v2/main-page/blocks';
  await waitFor(
    async () => {
      await closing.get(path);
      return (await answeredEarly(closing)) > 0;
    },
    'an answer sent early',
    { timeoutMs: 30_000 },
  );
  const statuses = new Set<number>();
  let asking = true;
  const client = (async () => {
    // One kept-alive connection (fetch's), asked again as soon as each answer is read.
    while (asking) {
      try {
        const response = await fetch(closing.base + path);
        await response.text();
        statuses.add(response.status);
      } catch {
        return;
      }
    }
  })();
  await new Promise((resolve) => setTimeout(resolve, 200));
  let timer: NodeJS.Timeout | undefined;
  const hangs = new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('the close waits on the client')), 20_000)));
  try {
    await Promise.race([closing.close(), hangs]);
  } finally {
    clearTimeout(timer);
    asking = false;
    await client;
  }
  assert.ok(statuses.has(200), `answered before the close: ${[...statuses].join(', ')}`);
});
