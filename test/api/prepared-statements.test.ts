import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { apiStatement } from '../../src/api/prepared-statements.js';
import { planStableStatement } from '../../src/store/read/plan-stable.js';
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
  const { rows } = await pool.query<{ name: string }>("SELECT name FROM pg_prepared_statements WHERE name LIKE 'sextant\\_%'");
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

test('only plan-stable statements are prepared, and only when statements are prepared at all', () => {
  const stable = planStableStatement('SELECT 1 AS plan_stable_test');
  const name = apiStatement(stable, [], true).name;
  assert.ok(name !== undefined, 'a plan-stable statement is prepared');
  assert.equal(apiStatement(stable, [], true).name, name, 'under the same name each time');
  assert.equal(apiStatement('SELECT $1::int AS keyed_test', [1], true).name, undefined, 'any other statement is planned for its values');
  assert.equal(apiStatement(stable, [], false).name, undefined, 'nothing is prepared when preparing is off');
});
