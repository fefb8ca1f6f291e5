import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Address } from '../../src/model.js';
import { clearAddressMarks, findAddressMarks } from '../../src/store/address-marks.js';
import { markCoinBalances } from '../../src/store/coin-balances.js';
import { type TestDatabase, createTestDatabase } from '../support/database.js';
import { waitFor } from '../support/wait.js';

let db: TestDatabase;

before(async () => {
  db = await createTestDatabase();
});
after(async () => {
  await db?.drop();
});

const low = `0x${'01'.repeat(20)}` as Address;
const high = `0x${'fe'.repeat(20)}` as Address;

test('a stage clearing marks locks them in address order, as writers marking them do: the two never deadlock', async () => {
  // The higher address first in the table, so that a clear that locks in the table's order takes it first.
  await db.pool.query('INSERT INTO coin_balance_marks (address, mark) VALUES ($1, 1), ($2, 2)', [
    Buffer.from(high.slice(2), 'hex'),
    Buffer.from(low.slice(2), 'hex'),
  ]);
  const read = await findAddressMarks(db.pool, 'coin_balance_marks', 10);
  assert.deepEqual(
    read.map((m) => m.address),
    [low, high],
  );
  const writer = await db.pool.connect();
  const stage = await db.pool.connect();
  try {
    // A block writer marks the lower address and holds its lock.
    await writer.query('BEGIN');
    await markCoinBalances(writer, [low]);
    // The stage clears both marks: it must wait for the lower one before it touches the higher one.
    await stage.query('BEGIN');
    // Whatever plan the server picks: a hash join scans the marks in the table's order.
    await stage.query('SET LOCAL enable_nestloop = off; SET LOCAL enable_mergejoin = off');
    const cleared = clearAddressMarks(stage, 'coin_balance_marks', read).then(
      () => null,
      (error: unknown) => error,
    );
    await waitFor(
      async () =>
        (
          await db.pool.query(
            "SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%DELETE FROM coin_balance_marks%'",
          )
        ).rowCount === 1,
      'the clear waiting on the lower mark',
    );
    // The writer goes on to mark the higher address (its writes are sorted too), then commits.
    await markCoinBalances(writer, [high]);
    await writer.query('COMMIT');
    assert.equal(await cleared, null, 'the clear ends without a deadlock');
    await stage.query('COMMIT');
    // Both addresses were marked again after the read: neither mark is cleared.
    const { rows } = await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM coin_balance_marks');
    assert.equal(rows[0]!.n, 2);
  } finally {
    await writer.query('ROLLBACK').catch(() => undefined);
    await stage.query('ROLLBACK').catch(() => undefined);
    writer.release();
    stage.release();
  }
});

test('a clear removes the marks read under, and keeps those marked again since', async () => {
  await db.pool.query('DELETE FROM coin_balance_marks');
  const [a, b, c] = ['0a', '0b', '0c'].map((byte) => `0x${byte.repeat(20)}` as Address) as [Address, Address, Address];
  const client = await db.pool.connect();
  try {
    await markCoinBalances(client, [a, b, c]);
    const read = await findAddressMarks(db.pool, 'coin_balance_marks', 10);
    await markCoinBalances(client, [b]);
    await clearAddressMarks(client, 'coin_balance_marks', read);
  } finally {
    client.release();
  }
  assert.deepEqual(
    (await findAddressMarks(db.pool, 'coin_balance_marks', 10)).map((m) => m.address),
    [b],
  );
});
