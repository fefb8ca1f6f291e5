import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { pino } from 'pino';
import { watchBulkLoad } from '../../src/app/bulk-load-watch.js';
import type { BulkLoadState } from '../../src/store/read/bulk-load.js';
import { type TestDatabase, createTestDatabase } from '../support/database.js';
import { servedRoutes } from '../support/served-paths.js';
import { waitFor } from '../support/wait.js';
import { type RunningApi, startApi } from './http.js';

let db: TestDatabase;
let api: RunningApi;
let bulkLoad: BulkLoadState | null = null;

before(async () => {
  db = await createTestDatabase();
  api = await startApi(db.pool, { bulkLoad: () => bulkLoad });
});

after(async () => {
  await api?.close();
  await db?.drop();
});

const setBulkLoad = (phase: string, stepsDone = 0) =>
  db.pool.query(
    `INSERT INTO bulk_load (phase, first_block, last_block, steps_done) VALUES ($1, 0, 99999, $2)
     ON CONFLICT (id) DO UPDATE SET phase = excluded.phase, steps_done = excluded.steps_done`,
    [phase, stepsDone],
  );

/** A concrete path for a route: each parameter a value of the shape its name says. */
function concretePath(url: string): string {
  return url.replace(/:(\w+)/g, (_, name: string) =>
    name === 'transaction_hash' ? `0x${'ab'.repeat(32)}` : name.includes('hash') && !name.includes('block') ? `0x${'cd'.repeat(20)}` : '1',
  );
}

const served = new Set(['/api/v2/main-page/indexing-status', '/api/v2/config/backend-version']);

test('while history is loaded in bulk, every data endpoint is a 503 with Retry-After; the status endpoints answer', async () => {
  assert.equal((await api.get('/api/v2/transactions')).status, 200, 'before the load');
  assert.equal((await api.get('/health')).body.bulk_load, null);

  bulkLoad = { phase: 'loading', firstBlock: 0n, lastBlock: 99_999n, stepsDone: 0, stepsTotal: null };
  await setBulkLoad('loading');
  try {
    const routes = servedRoutes().filter((r) => r.url.startsWith('/api/v2/') || r.url.startsWith('/api/v1/'));
    assert.ok(routes.length > 30, `${routes.length} routes`);
    for (const route of routes) {
      const path = concretePath(route.url);
      const answer = await api.get(path);
      if (served.has(route.url)) {
        assert.equal(answer.status, 200, path);
        continue;
      }
      assert.equal(answer.status, 503, path);
      assert.equal(answer.headers.get('retry-after'), '60', path);
      assert.match(answer.body.message, /loaded in bulk/, path);
    }
    const health = await api.get('/health');
    assert.equal(health.status, 200);
    assert.deepEqual(health.body.bulk_load, { phase: 'loading', first_block: 0, last_block: 99999, steps_done: 0, steps_total: null });
    assert.equal((await fetch(`${api.base}/metrics`)).status, 200);
    assert.equal((await fetch(`${api.base}/openapi.json`)).status, 200);
    assert.equal((await api.get('/api/v2/no-such-endpoint')).status, 404, 'an unknown path is still a 404');
  } finally {
    bulkLoad = null;
    await db.pool.query('DELETE FROM bulk_load');
  }
});

test('the switch names its phase and step, and the endpoints answer again once it is done', async () => {
  bulkLoad = { phase: 'indexes', firstBlock: 0n, lastBlock: 99_999n, stepsDone: 3, stepsTotal: 40 };
  const answer = await api.get('/api/v2/blocks');
  assert.equal(answer.status, 503);
  assert.match(answer.body.message, /building indexes \(step 4 of 40\)/);
  bulkLoad = null;
  assert.equal((await api.get('/api/v2/blocks')).status, 200);
});

test("the bulk load's row is read apart from the requests, now and then, and a new phase is seen", async () => {
  const watch = await watchBulkLoad(db.pool, pino({ level: 'silent' }), 50);
  try {
    assert.equal(watch.current(), null);
    await db.pool.query("INSERT INTO bulk_load_ledger_steps (name) VALUES ('a'), ('b'), ('c'), ('d'), ('e'), ('f')");
    await setBulkLoad('ledger', 2);
    await waitFor(() => watch.current()?.phase === 'ledger', 'the ledger phase seen', { timeoutMs: 30_000 });
    assert.deepEqual(watch.current(), { phase: 'ledger', firstBlock: 0n, lastBlock: 99_999n, stepsDone: 2, stepsTotal: 8 });
    await db.pool.query("INSERT INTO bulk_load_dropped_indexes (name, definition) VALUES ('a', ''), ('b', '')");
    await setBulkLoad('indexes', 5);
    await waitFor(() => watch.current()?.phase === 'indexes', 'the index phase seen', { timeoutMs: 30_000 });
    assert.equal(watch.current()?.stepsTotal, 7, 'five indexes built and two left');
    await db.pool.query('DELETE FROM bulk_load_dropped_indexes');
    await db.pool.query('DELETE FROM bulk_load_ledger_steps');
    await db.pool.query('DELETE FROM bulk_load');
    await waitFor(() => watch.current() === null, 'the end of the bulk load seen', { timeoutMs: 30_000 });
  } finally {
    watch.stop();
  }
});
