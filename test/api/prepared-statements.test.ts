import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { apiStatement } from '../../src/api/prepared-statements.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { startApi } from './http.js';

let db: TestDatabase;

before(async () => {
  db = await createTestDatabase();
});

after(async () => {
  await db.drop();
});

/** The statements the API prepared on the one connection of `pool`, read on that connection once the API is done with it. */
async function preparedOn(pool: pg.Pool): Promise<string[]> {
  const { rows } = await pool.query<{ name: string }>("SELECT name FROM pg_prepared_statements WHERE name LIKE 'sextant\\_api\\_%'");
  return rows.map((r) => r.name);
}

for (const prepareStatements of [true, false]) {
  test(`with prepareStatements ${prepareStatements}, a page's statements ${prepareStatements ? 'are' : 'are not'} prepared on the connection, and answer the same`, async () => {
    const pool = new pg.Pool({ connectionString: db.url, max: 1 });
    const api = await startApi(pool, { prepareStatements });
    try {
      const first = await api.get('/api/v2/transactions');
      const second = await api.get('/api/v2/transactions');
      assert.equal(first.status, 200);
      assert.deepEqual(second.body, first.body);
      const prepared = await preparedOn(pool);
      if (prepareStatements) assert.ok(prepared.length > 0, 'no statement prepared');
      else assert.deepEqual(prepared, []);
    } finally {
      await api.close();
      await pool.end();
    }
  });
}

test('no more than 200 statement texts are prepared: later texts are sent unnamed, earlier ones keep their names', () => {
  const first = apiStatement('SELECT 1 AS bound_test_first', [], true);
  assert.ok(first.name !== undefined);
  for (let n = 0; n < 250; n++) apiStatement(`SELECT ${n} AS bound_test`, [], true);
  assert.equal(apiStatement('SELECT 1 AS bound_test_late', [], true).name, undefined);
  assert.equal(apiStatement('SELECT 1 AS bound_test_first', [], true).name, first.name);
  assert.equal(apiStatement('SELECT 1 AS bound_test_first', [], false).name, undefined);
});
