import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type TestDatabase, createTestDatabase } from '../support/database.js';
import { servedRoutes } from '../support/served-paths.js';
import { waitFor } from '../support/wait.js';
import { type RunningApi, startApi } from './http.js';

let db: TestDatabase;
let api: RunningApi;

before(async () => {
  db = await createTestDatabase();
  api = await startApi(db.pool);
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

  await setBulkLoad('loading');
  // The guard reads the state at most every two seconds: a new API reads it at once.
  const during = await startApi(db.pool);
  try {
    const routes = servedRoutes().filter((r) => r.url.startsWith('/api/v2/'));
    assert.ok(routes.length > 30, `${routes.length} routes`);
    for (const route of routes) {
      const path = concretePath(route.url);
      const answer = await during.get(path);
      if (served.has(route.url)) {
        assert.equal(answer.status, 200, path);
        continue;
      }
      assert.equal(answer.status, 503, path);
      assert.equal(answer.headers.get('retry-after'), '60', path);
      assert.match(answer.body.message, /loaded in bulk/, path);
    }
    const health = await during.get('/health');
    assert.equal(health.status, 200);
    assert.deepEqual(health.body.bulk_load, { phase: 'loading', first_block: 0, last_block: 99999, steps_done: 0 });
    assert.equal((await fetch(`${during.base}/metrics`)).status, 200);
    assert.equal((await fetch(`${during.base}/openapi.json`)).status, 200);
    assert.equal((await during.get('/api/v2/no-such-endpoint')).status, 404, 'an unknown path is still a 404');
  } finally {
    await during.close();
  }
});

test('the switch names its phase and step, and the endpoints answer again once the row is gone', async () => {
  await setBulkLoad('indexes', 3);
  await waitFor(async () => (await api.get('/api/v2/blocks')).status === 503, 'the running API to see the switch', {
    timeoutMs: 30_000,
    intervalMs: 250,
  });
  const answer = await api.get('/api/v2/blocks');
  assert.match(answer.body.message, /building indexes \(step 4\)/);
  assert.equal((await api.get('/health')).body.bulk_load.phase, 'indexes');

  await db.pool.query('DELETE FROM bulk_load');
  await waitFor(async () => (await api.get('/api/v2/blocks')).status === 200, 'the endpoints to answer again', {
    timeoutMs: 30_000,
    intervalMs: 250,
  });
  assert.equal((await api.get('/health')).body.bulk_load, null);
});
