import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import WebSocket from 'ws';
import { apiApplicationName } from '../../src/app/database.js';
import { createRpcClient } from '../../src/chain/rpc.js';
import { startAnvil, type AnvilNode } from '../../src/demo/anvil.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { startSextant } from '../support/sextant-process.js';
import { waitFor } from '../support/wait.js';

// `sextant start` against a node of a few blocks. A request is held in flight by a lock on the
// blocks table, taken by another connection; SIGTERM then must stop new connections, let that
// request finish, close the websocket's clients and end the process with code 0. The request may
// wait on the lock as long as a busy machine takes to get there: no statement timeout, no shedding.

let anvil: AnvilNode;
let db: TestDatabase;

before(async () => {
  anvil = await startAnvil();
  await createRpcClient({ url: anvil.rpcUrl }).request('anvil_mine', ['0x5']);
  db = await createTestDatabase();
});

after(async () => {
  await db?.drop();
  await anvil?.stop();
});

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

test('on SIGTERM, a request in flight completes with 200, new connections are refused, websockets close, the process exits 0', async () => {
  const sextant = await startSextant({
    ETHEREUM_JSONRPC_HTTP_URL: anvil.rpcUrl,
    DATABASE_URL: db.url,
    INDEXER_POLL_INTERVAL_MS: '100',
    API_STATEMENT_TIMEOUT_MS: '600000',
    API_MAX_EVENT_LOOP_DELAY_MS: '0',
  });
  const socket = new WebSocket(`${sextant.baseUrl.replace('http', 'ws')}/socket/v2/websocket?vsn=2.0.0`);
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  const socketClosed = new Promise((resolve) => socket.once('close', resolve));

  const locker = new pg.Client({ connectionString: db.url });
  await locker.connect();
  try {
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE blocks IN ACCESS EXCLUSIVE MODE');
    const slow = fetch(`${sextant.baseUrl}/api/v2/blocks`);
    await waitFor(
      async () => {
        const { rows } = await locker.query(
          `SELECT count(*)::int AS n FROM pg_stat_activity
           WHERE datname = current_database() AND application_name = $1 AND wait_event_type = 'Lock'`,
          [apiApplicationName],
        );
        return rows[0].n > 0;
      },
      'the API request waiting on the lock',
      { timeoutMs: 60_000, intervalMs: 50 },
    );

    const exited = sextant.stop();
    await waitFor(
      () =>
        fetch(`${sextant.baseUrl}/health`).then(
          () => false,
          () => true,
        ),
      'new connections refused once SIGTERM arrived',
      { timeoutMs: 30_000, intervalMs: 50 },
    );
    assert.ok(alive(sextant.pid), 'still running: a request is in flight');
    await socketClosed;

    await locker.query('COMMIT');
    const answer = await slow;
    assert.equal(answer.status, 200, await answer.clone().text());
    assert.ok(((await answer.json()) as { items: unknown[] }).items.length > 0);
    const answeredAt = Date.now();
    assert.equal(await exited, 0, sextant.output());
    // The connection that carried the answer is closed once idle: the exit does not wait out its keep-alive (72 s).
    assert.ok(Date.now() - answeredAt < 60_000, `exited ${Date.now() - answeredAt} ms after the answer`);
    assert.ok(!alive(sextant.pid), 'no process left');
  } finally {
    await locker.end();
  }
});
