import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { writeBlockBundles } from '../../src/store/write-blocks.js';
import { type TestDatabase, createTestDatabase } from '../support/database.js';
import { syntheticAddress, syntheticChain } from '../support/synthetic-chain.js';
import { type RunningApi, startApi } from './http.js';

const endpoints = [
  '/api/v2/transactions',
  '/api/v2/transactions?filter=pending',
  `/api/v2/addresses/${syntheticAddress('miner')}/blocks-validated`,
  `/api/v2/addresses/${syntheticAddress('miner')}/internal-transactions?filter=from`,
  '/api/v2/blocks/1/withdrawals',
];

let db: TestDatabase;
let api: RunningApi;

before(async () => {
  db = await createTestDatabase();
  await writeBlockBundles(db.pool, syntheticChain({ from: 1n, to: 3n, transactionsPerBlock: () => 2 }));
  api = await startApi(db.pool);
});

after(async () => {
  await api?.close();
  await db?.drop();
});

/** A request as raw as a client can send it, bypassing fetch's URL normalisation. */
function rawGet(base: string, path: string): Promise<{ status: number; body: string; cacheControl: string | undefined }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path, method: 'GET', agent: false }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, cacheControl: res.headers['cache-control'] }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('GET /health reports the indexed head', async () => {
  const { status, body, headers } = await api.get('/health');
  assert.equal(status, 200);
  assert.deepEqual(body, {
    status: 'ok',
    indexed_head: 3,
    indexer: null,
    progress: null,
    replica: null,
    bulk_load: null,
    offchain_sources: [],
  });
  assert.equal(headers.get('cache-control'), 'no-store');
});

test('data answers are JSON and cacheable briefly; malformed requests for longer', async () => {
  for (const path of endpoints) {
    const response = await api.get(path);
    assert.equal(response.status, 200, path);
    assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
    assert.equal(response.headers.get('cache-control'), 'public, max-age=5');
  }
  const invalid = await api.get('/api/v2/transactions?type=nope');
  assert.equal(invalid.headers.get('cache-control'), 'public, max-age=3600');
});

test('unknown routes and methods are a 404 JSON body', async () => {
  for (const path of [
    '/',
    '/api/v2',
    '/api/v2/blocks/1/unknown-tab',
    '/api/v2/transactions/extra/more',
    '/api/v1/transactions',
    '/api/v2/addresses/0x1/unknown-tab',
  ]) {
    const response = await api.get(path);
    assert.equal(response.status, 404, path);
    assert.deepEqual(response.body, { message: 'Not found' }, path);
  }
  const post = await fetch(`${api.base}/api/v2/transactions`, { method: 'POST' });
  assert.equal(post.status, 404);
  assert.deepEqual(await post.json(), { message: 'Not found' });
});

test('a trailing slash names the same endpoint', async () => {
  assert.deepEqual((await api.get('/api/v2/transactions/')).body, (await api.get('/api/v2/transactions')).body);
});

test('HEAD answers like GET without a body', async () => {
  const response = await fetch(`${api.base}/api/v2/transactions`, { method: 'HEAD' });
  assert.equal(response.status, 200);
  assert.equal(await response.text(), '');
});

test('no input, however malformed, gets a 500', async () => {
  const paths = [
    '/api/v2/blocks/%zz/withdrawals',
    '/api/v2/blocks/%/withdrawals',
    '/api/v2/blocks/%00/withdrawals',
    '/api/v2/addresses/%E0%A4%A/blocks-validated',
    '/api/v2/transactions?type=%zz',
    '/api/v2/transactions?%zz=1',
    '/api/v2/transactions?type[]=coin_transfer',
    '/api/v2/transactions?type[a]=1',
    '/api/v2/transactions?__proto__=1&constructor=2',
    '/api/v2/transactions?__proto__[block_number]=1',
    '/api/v2/transactions?block_number=1e3&index=0x10',
    '/api/v2/transactions?block_number=Infinity&index=NaN',
    '/api/v2/transactions?block_number=99999999999999999999&index=1',
    '/api/v2/transactions?block_number=%00&index=1',
    `/api/v2/transactions?filter=pending&inserted_at=2024-02-30T00:00:00Z&hash=0x${'a'.repeat(64)}`,
    `/api/v2/transactions?filter=pending&inserted_at=2024-01-01T23:59:60Z&hash=0x${'a'.repeat(64)}`,
    `/api/v2/transactions?filter=pending&inserted_at=9999-12-31T23:59:59.999999Z&hash=0x${'a'.repeat(64)}`,
    `/api/v2/transactions?method=${'a'.repeat(20000)}`,
    '/api/v2/transactions?method=%F0%9F%92%A9',
    `/api/v2/transactions?${'x=1&'.repeat(2000)}`,
    `/api/v2/blocks/${'9'.repeat(400)}/withdrawals`,
    '/api/v2/blocks/1/withdrawals?index=9007199254740992',
    '/api/v2/blocks/1/withdrawals?index=9007199254740991',
    `/api/v2/addresses/${syntheticAddress('miner')}/blocks-validated?block_number=9007199254740991`,
    '//api//v2//transactions',
    '/api/v2/transactions?;',
  ];
  for (const path of paths) {
    const response = await rawGet(api.base, path);
    assert.ok(response.status < 500, `${path}: ${response.status} ${response.body}`);
    const body = JSON.parse(response.body) as Record<string, unknown>;
    assert.ok('items' in body || 'message' in body || 'errors' in body, `${path}: ${response.body}`);
    assert.doesNotMatch(response.body, /\bat .*\.(ts|js):\d+/, 'no stack trace');
  }
});

test('a URL the router cannot decode is a 400 with a message', async () => {
  const response = await rawGet(api.base, '/api/v2/blocks/%zz/withdrawals');
  assert.equal(response.status, 400);
  assert.match(JSON.parse(response.body).message, /percent-encoding/);
});

test('an unreachable database is a 503 on every endpoint, /health included, never cached', async () => {
  const pool = new pg.Pool({ connectionString: 'postgresql://postgres@127.0.0.1:1/none', connectionTimeoutMillis: 2000 });
  const down = await startApi(pool);
  try {
    for (const path of [...endpoints, `/api/v2/blocks/0x${'ab'.repeat(32)}/withdrawals`, '/health']) {
      const response = await down.get(path);
      assert.equal(response.status, 503, path);
      assert.equal(typeof response.body.message, 'string');
      assert.deepEqual(Object.keys(response.body), ['message']);
      assert.equal(response.headers.get('cache-control'), 'no-store');
    }
    // Malformed input is still answered without the database.
    assert.equal((await down.get('/api/v2/transactions?type=nope')).status, 422);
  } finally {
    await down.close();
    await pool.end();
  }
});

test('a database that went away mid-flight (pool ended, server shutting down) is a 503', async () => {
  const ended = new pg.Pool({ connectionString: db.url });
  await ended.end();
  const shuttingDown = {
    query: async () => Promise.reject(Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' })),
  };
  for (const pool of [ended, shuttingDown as unknown as pg.Pool]) {
    const down = await startApi(pool);
    try {
      const response = await down.get('/api/v2/transactions');
      assert.equal(response.status, 503);
    } finally {
      await down.close();
    }
  }
});

test('an unexpected failure is a 500 with a generic message and no stack trace', async () => {
  const broken = { query: async () => Promise.reject(new TypeError('something internal broke')) };
  const api500 = await startApi(broken as unknown as pg.Pool);
  try {
    const response = await api500.get('/api/v2/transactions');
    assert.equal(response.status, 500);
    assert.deepEqual(response.body, { message: 'Internal server error' });
    assert.equal(response.headers.get('cache-control'), 'no-store');
  } finally {
    await api500.close();
  }
});
