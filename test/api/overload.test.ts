import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { pino } from 'pino';
import { openDatabase, type Database } from '../../src/app/database.js';
import { parseConfig, type RawSettings } from '../../src/config.js';
import type { Db } from '../../src/store/read/sql.js';
import { createTestDatabase, testServerUrl, type TestDatabase } from '../support/database.js';
import { waitFor } from '../support/wait.js';
import { parsePrometheus, sampleValue } from '../support/prometheus.js';
import { type ApiResponse, startApi } from './http.js';
import { buildApi } from '../../src/api/server.js';
import { ClientGoneError, PoolSaturatedError, clientAwareDb, withRequestContext } from '../../src/api/client-gone.js';
import { WAITING_PER_SLOT, answerSlotsPerProcess } from '../../src/api/answer-slots.js';

// The API's own pool: read-only, each statement and each wait for a connection bounded and answered
// with a 503 that says when to come back; load shed while the event loop lags; no query for a client gone.

let db: TestDatabase;
const opened: Database[] = [];
const silent = pino({ level: 'silent' });

async function open(raw: RawSettings): Promise<Database> {
  const database = await openDatabase(parseConfig({ databaseUrl: db.url, ...raw }), silent);
  opened.push(database);
  return database;
}

before(async () => {
  db = await createTestDatabase();
});

after(async () => {
  for (const database of opened) await database.close();
  await db.drop();
});

test("a write through the API's pool fails: its transactions are read-only; the indexer's pool writes", async () => {
  const { pool, apiPool } = await open({});
  await assert.rejects(apiPool.query('CREATE TABLE written_by_the_api (x int)'), { code: '25006' });
  await assert.rejects(apiPool.query('DELETE FROM blocks'), { code: '25006' });
  assert.equal((await apiPool.query('SELECT count(*)::int AS n FROM blocks')).rows[0].n, 0);
  await pool.query('CREATE TABLE written_by_the_indexer (x int)');
  await pool.query('DROP TABLE written_by_the_indexer');
});

test('an options parameter in the URL does not lift the read-only setting', async () => {
  const { apiPool } = await open({ databaseUrl: `${db.url}?options=${encodeURIComponent('-c search_path=public')}` });
  assert.equal((await apiPool.query('SHOW search_path')).rows[0].search_path, 'public');
  await assert.rejects(apiPool.query('CREATE TABLE written_by_the_api (x int)'), { code: '25006' });
});

test('DATABASE_READ_ONLY_API_URL: the API connects as that role, which the server refuses a write even in a read-write transaction', async () => {
  const role = `sextant_reader_${randomBytes(4).toString('hex')}`;
  const name = new URL(db.url).pathname.slice(1);
  await db.pool.query(`CREATE ROLE ${role} LOGIN`);
  try {
    await db.pool.query(`GRANT CONNECT ON DATABASE ${name} TO ${role}; GRANT SELECT ON ALL TABLES IN SCHEMA public TO ${role}`);
    const readerUrl = `${testServerUrl.replace('//postgres@', `//${role}@`)}/${name}`;
    const { apiPool } = await open({ databaseReadOnlyApiUrl: readerUrl });
    assert.equal((await apiPool.query('SELECT current_user')).rows[0].current_user, role);
    await assert.rejects(apiPool.query('BEGIN READ WRITE; DELETE FROM blocks'), { code: '42501' });
    await apiPool.query('ROLLBACK');
  } finally {
    for (const database of opened.splice(0)) await database.close();
    await db.pool.query(`DROP OWNED BY ${role}; DROP ROLE ${role}`);
  }
});

/** Asserts a 503 that says when to try again, with a JSON body. */
function assertUnavailable(response: { status: number; headers: Headers; body: unknown }, what: string): void {
  assert.equal(response.status, 503, what);
  assert.equal(response.headers.get('retry-after'), '1', what);
  assert.match((response.body as { message: string }).message, /try again shortly/, what);
}

test('a request that waits longer than API_POOL_WAIT_MS for a connection is a 503 with Retry-After', async () => {
  const { apiPool } = await open({ apiPoolSize: '1', apiPoolWaitMs: '200' });
  const api = await startApi(apiPool);
  const held = await apiPool.connect();
  try {
    assertUnavailable(await api.get('/api/v2/blocks'), 'every connection busy');
  } finally {
    held.release();
    await api.close();
  }
  const again = await startApi(apiPool);
  assert.equal((await again.get('/api/v2/blocks')).status, 200);
  await again.close();
});

test('beyond ten waiting requests per connection, a request is refused at once with a 503, not queued', async () => {
  const { apiPool } = await open({ apiPoolSize: '1', apiPoolWaitMs: '60000' });
  const api = await startApi(apiPool);
  const held = await apiPool.connect();
  let released = false;
  try {
    const waiting = Array.from({ length: 10 }, () => api.get('/api/v2/blocks'));
    await waitFor(() => apiPool.waitingCount === 10, 'ten requests waiting for the connection');
    assertUnavailable(await api.get('/api/v2/blocks'), 'a full queue');
    held.release();
    released = true;
    assert.deepEqual(
      (await Promise.all(waiting)).map(({ status }) => status),
      Array.from({ length: 10 }, () => 200),
    );
  } finally {
    if (!released) held.release();
    await api.close();
  }
});

test('a query that runs longer than API_STATEMENT_TIMEOUT_MS is cancelled and answered 503 with Retry-After', async () => {
  const { apiPool } = await open({ apiStatementTimeoutMs: '300' });
  const api = await startApi(apiPool);
  const locker = await db.pool.connect();
  try {
    await locker.query('BEGIN; LOCK TABLE blocks IN ACCESS EXCLUSIVE MODE');
    assertUnavailable(await api.get('/api/v2/blocks'), 'a query held by a lock');
  } finally {
    await locker.query('ROLLBACK');
    locker.release();
    await api.close();
  }
});

test('while the event loop lags beyond maxEventLoopDelayMs, requests are a quick 503 with Retry-After, then served again', async () => {
  const api = await startApi(db.pool, { maxEventLoopDelayMs: 50 });
  try {
    const served = async () => (await api.get('/api/v2/blocks')).status === 200;
    await waitFor(served, 'a 200 while the event loop is free', { timeoutMs: 30_000 });
    // The event loop blocked 100 ms at a time, until a request is shed (the lag is noticed at the next sample).
    let lagging = true;
    const lag = (async () => {
      while (lagging) {
        const busyUntil = Date.now() + 100;
        while (Date.now() < busyUntil);
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    let shed: ApiResponse | undefined;
    try {
      await waitFor(
        async () => {
          const response = await api.get('/api/v2/blocks');
          if (response.status === 503) shed = response;
          return shed !== undefined;
        },
        'a 503 while the event loop lags',
        { timeoutMs: 30_000, intervalMs: 20 },
      );
    } finally {
      lagging = false;
      await lag;
    }
    assertUnavailable(shed!, 'a lagging event loop');
    await waitFor(served, 'a 200 once the event loop is free again', { timeoutMs: 30_000 });
  } finally {
    await api.close();
  }
});

test('the first request once the event loop has caught up is served, though the last sample of the delay still shows the lag', async () => {
  const app = await buildApi({ pool: db.pool, maxEventLoopDelayMs: 100 });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${listeningPort(app)}/api/v2/blocks`;
  try {
    let lagging = true;
    const lag = (async () => {
      while (lagging) {
        const busyUntil = Date.now() + 300;
        while (Date.now() < busyUntil);
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    try {
      await waitFor(async () => (await fetch(url)).status === 503, 'a 503 while the event loop lags', {
        timeoutMs: 30_000,
        intervalMs: 20,
      });
    } finally {
      lagging = false;
      await lag;
    }
    const { eventLoopDelay } = (app as unknown as { memoryUsage(): { eventLoopDelay: number } }).memoryUsage();
    assert.ok(eventLoopDelay > 100, `the last sample still shows the lag (${eventLoopDelay} ms)`);
    assert.equal((await fetch(url)).status, 200);
  } finally {
    await app.close();
  }
});

test('a request whose client has gone runs no query once a connection is free', async () => {
  const pool = new pg.Pool({ connectionString: db.url, max: 1 });
  let queries = 0;
  const counted: Db & { connect(): Promise<Db & Pick<pg.PoolClient, 'release' | 'on' | 'off'>> } = {
    query: (text, values) => {
      queries += 1;
      return pool.query(text, values);
    },
    async connect() {
      const client = await pool.connect();
      return {
        query: (text, values) => {
          queries += 1;
          return client.query(text, values);
        },
        release: () => client.release(),
        on: client.on.bind(client),
        off: client.off.bind(client),
      };
    },
  };
  const app = await buildApi({ pool: counted });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as { port: number };
  const held = await pool.connect();
  try {
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => undefined);
    socket.write('GET /api/v2/blocks HTTP/1.1\r\nHost: localhost\r\n\r\n');
    await waitFor(async () => pool.waitingCount === 1, 'the request waiting for the connection');
    socket.destroy();
    await waitFor(
      () => new Promise<boolean>((resolve) => app.server.getConnections((_error, count) => resolve(count === 0))),
      'the server seeing the client go',
    );
    held.release();
    await waitFor(async () => pool.waitingCount === 0 && pool.idleCount === 1, 'the request done with the connection');
    assert.equal(queries, 0, 'no query ran for the client that had gone');
    const response = await fetch(`http://127.0.0.1:${port}/api/v2/blocks`);
    assert.equal(response.status, 200);
    assert.ok(queries > 0, 'a request whose client stays runs its queries');
  } finally {
    await app.close();
    await pool.end();
  }
});

test('requests whose clients leave while they look again at a full queue are not queued: the next request is', async () => {
  const { apiPool } = await open({ apiPoolSize: '1', apiPoolWaitMs: '60000' });
  const guarded = clientAwareDb(apiPool, true);
  const query = (client: AbortController) => withRequestContext({ socket: null, gone: client.signal }, () => guarded.query('SELECT 1'));
  const release = holdTheConnection(await apiPool.connect());
  try {
    const waitingClients = Array.from({ length: 10 }, () => new AbortController());
    const waiting = waitingClients.map((client) => settled(query(client)));
    await waitFor(() => apiPool.waitingCount === 10, 'ten requests waiting for the connection');
    // Ten more find the queue full and look again one turn later; before that turn every client leaves,
    // as at the end of a burst, so that the second look finds the queue's waiters gone.
    const lookingClients = Array.from({ length: 10 }, () => new AbortController());
    const looking = lookingClients.map((client) => settled(query(client)));
    for (const client of [...waitingClients, ...lookingClients]) client.abort();
    await waitFor(() => looking.every((s) => s.outcome !== undefined), 'the ten that looked again answered', { timeoutMs: 5_000 });
    for (const { outcome } of looking) assert.ok(outcome instanceof ClientGoneError, String(outcome));
    assert.equal(apiPool.waitingCount, 10, 'none of the ten that looked again joined the queue');
    await assertStayingServed(apiPool, release, query(new AbortController()), waiting);
  } finally {
    release();
  }
});

test("waiting requests whose sockets are closed count as gone before their signals abort (later in the event loop's turn)", async () => {
  const { apiPool } = await open({ apiPoolSize: '1', apiPoolWaitMs: '60000' });
  const guarded = clientAwareDb(apiPool, true);
  const release = holdTheConnection(await apiPool.connect());
  try {
    // Sockets closed, as the server sees them once their ends are read; the close events not handled yet.
    const sockets = Array.from({ length: 10 }, () => ({ destroyed: false }));
    const waiting = sockets.map((socket) =>
      settled(withRequestContext({ socket: socket as Socket, gone: new AbortController().signal }, () => guarded.query('SELECT 1'))),
    );
    await waitFor(() => apiPool.waitingCount === 10, 'ten requests waiting for the connection');
    for (const socket of sockets) socket.destroyed = true;
    const staying = withRequestContext({ socket: null, gone: new AbortController().signal }, () => guarded.query('SELECT 1'));
    await assertStayingServed(apiPool, release, staying, waiting);
  } finally {
    release();
  }
});

test("a request's statements waiting side by side count as one waiting request", async () => {
  const { apiPool } = await open({ apiPoolSize: '1', apiPoolWaitMs: '60000' });
  const guarded = clientAwareDb(apiPool, true);
  const request = () => ({ socket: null, gone: new AbortController().signal });
  const release = holdTheConnection(await apiPool.connect());
  try {
    const single = Array.from({ length: 8 }, () => settled(withRequestContext(request(), () => guarded.query('SELECT 1'))));
    await waitFor(() => apiPool.waitingCount === 8, 'eight requests waiting for the connection');
    // The ninth request's three statements make eleven waiting statements, but nine waiting requests: under the bound of ten.
    const page = request();
    const sideBySide = Array.from({ length: 3 }, () => settled(withRequestContext(page, () => guarded.query('SELECT 2'))));
    await waitFor(() => apiPool.waitingCount === 11, "the ninth request's three statements waiting");
    // A tenth request fills the queue, and an eleventh is refused.
    const tenth = settled(withRequestContext(request(), () => guarded.query('SELECT 1')));
    await waitFor(() => apiPool.waitingCount === 12, 'the tenth request waiting');
    await assert.rejects(
      withRequestContext(request(), () => guarded.query('SELECT 1')),
      (error) => error instanceof PoolSaturatedError,
    );
    release();
    await waitFor(() => [...single, ...sideBySide, tenth].every((s) => s.outcome !== undefined), 'every waiting statement answered');
    for (const { outcome } of [...single, ...sideBySide, tenth]) assert.ok(!(outcome instanceof Error), String(outcome));
  } finally {
    release();
  }
});

/** Lets the held connection go, once however often it is called. */
function holdTheConnection(held: pg.PoolClient): () => void {
  let released = false;
  return () => {
    if (!released) held.release();
    released = true;
  };
}

/**
 * A request of a client that stays is queued behind the ten of clients gone, not refused; once the
 * connection is let go it is served, and the ten end in ClientGoneError without running a query.
 */
async function assertStayingServed(
  pool: pg.Pool,
  release: () => void,
  staying: Promise<pg.QueryResult>,
  gone: readonly { outcome: unknown }[],
): Promise<void> {
  await waitFor(() => pool.waitingCount === 11, 'the staying request queued, not refused');
  release();
  assert.deepEqual((await staying).rows, [{ '?column?': 1 }]);
  await waitFor(() => gone.every((s) => s.outcome !== undefined), 'the ten that waited answered');
  for (const { outcome } of gone) assert.ok(outcome instanceof ClientGoneError, String(outcome));
}

/** `promise`'s value or rejection once it settles, kept without an unhandled rejection meanwhile. */
function settled(promise: Promise<unknown>): { outcome: unknown } {
  const state: { outcome: unknown } = { outcome: undefined };
  promise.then(
    (value) => (state.outcome = value ?? null),
    (error: unknown) => (state.outcome = error),
  );
  return state;
}

/** A request sent on a socket of its own, which the test closes to play a client that leaves. */
function leavingClient(port: number, path: string): { leave(): void } {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  socket.write(`GET ${path} HTTP/1.1\r\nHost: localhost\r\n\r\n`);
  return { leave: () => socket.destroy() };
}

function listeningPort(app: Awaited<ReturnType<typeof buildApi>>): number {
  return (app.server.address() as { port: number }).port;
}

test("a running statement whose request's client leaves is cancelled, and its connection serves the next request", async () => {
  const { apiPool } = await open({ apiPoolSize: '1', apiStatementTimeoutMs: '60000' });
  const app = await buildApi({ pool: apiPool });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const locker = await db.pool.connect();
  const waitingOnLock = async () =>
    (
      await db.pool.query<{ pid: number }>(
        "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND state = 'active' AND wait_event_type = 'Lock' AND query LIKE '%FROM blocks%'",
      )
    ).rows;
  try {
    await locker.query('BEGIN; LOCK TABLE blocks IN ACCESS EXCLUSIVE MODE');
    const client = leavingClient(listeningPort(app), '/api/v2/blocks');
    await waitFor(async () => (await waitingOnLock()).length === 1, "the API's statement waiting for the lock");
    const [{ pid }] = (await waitingOnLock()) as [{ pid: number }];
    client.leave();
    // The lock is held for good: only the cancel can end the statement.
    await waitFor(
      async () => (await db.pool.query("SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND state = 'active'", [pid])).rowCount === 0,
      'the statement cancelled after the client left',
      { timeoutMs: 30_000, intervalMs: 20 },
    );
    // The lock is still held: the one connection came back to the pool and answers from the next request.
    await waitFor(async () => apiPool.idleCount === 1, 'the connection back in the pool');
    const lockerStillHolds = await db.pool.query(
      "SELECT 1 FROM pg_locks WHERE relation = 'blocks'::regclass AND mode = 'AccessExclusiveLock' AND granted",
    );
    assert.equal(lockerStillHolds.rowCount, 1);
    await locker.query('ROLLBACK');
    const response = await fetch(`http://127.0.0.1:${listeningPort(app)}/api/v2/blocks`);
    assert.equal(response.status, 200);
    assert.equal(
      (await db.pool.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [pid])).rowCount,
      1,
      'the same backend, not a new connection',
    );
  } finally {
    await locker.query('ROLLBACK');
    locker.release();
    await app.close();
  }
});

test('waiting requests whose clients have left do not count toward the bound of ten per connection', async () => {
  const { apiPool } = await open({ apiPoolSize: '1', apiPoolWaitMs: '60000' });
  const app = await buildApi({ pool: apiPool });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const held = await apiPool.connect();
  let released = false;
  try {
    const leaving = Array.from({ length: 10 }, () => leavingClient(listeningPort(app), '/api/v2/blocks'));
    await waitFor(async () => apiPool.waitingCount === 10, 'ten requests waiting for the connection');
    for (const client of leaving) client.leave();
    await waitFor(
      () => new Promise<boolean>((resolve) => app.server.getConnections((_error, count) => resolve(count === 0))),
      'the server seeing the clients go',
    );
    assert.equal(apiPool.waitingCount, 10, "still in pg-pool's queue");
    const staying = fetch(`http://127.0.0.1:${listeningPort(app)}/api/v2/blocks`);
    await waitFor(async () => apiPool.waitingCount === 11, 'the staying request queued, not refused');
    held.release();
    released = true;
    assert.equal((await staying).status, 200);
  } finally {
    if (!released) held.release();
    await app.close();
  }
});

/** The Etherscan-style lists' slots, as /metrics gives them. */
async function listSlots(base: string): Promise<{ held: number | undefined; waiting: number | undefined }> {
  const samples = parsePrometheus(await (await fetch(`${base}/metrics`)).text());
  return {
    held: sampleValue(samples, 'sextant_etherscan_list_slots', { state: 'held' }),
    waiting: sampleValue(samples, 'sextant_etherscan_list_slots', { state: 'waiting' }),
  };
}

test("the Etherscan-style lists are computed a few at a time: past the line's length a request is refused at once, and other actions are not held; /metrics counts the line", async () => {
  const { apiPool } = await open({ apiPoolSize: '20', apiPoolWaitMs: '60000' });
  const api = await startApi(apiPool);
  const locker = await db.pool.connect();
  const slots = answerSlotsPerProcess();
  const address = `0x${'11'.repeat(20)}`;
  try {
    await locker.query('BEGIN; LOCK TABLE transactions IN ACCESS EXCLUSIVE MODE');
    const lists = Array.from({ length: slots + WAITING_PER_SLOT * slots + 1 }, () =>
      api.get(`/api?module=account&action=txlist&address=${address}`),
    );
    const first = await Promise.race(lists);
    assert.equal(first.status, 503);
    assert.equal(first.headers.get('retry-after'), '1');
    assert.deepEqual(first.body, { status: '0', message: 'Too many large answers are being prepared; try again shortly.', result: null });
    const waitingOnTheLock = async () =>
      (
        await db.pool.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%transactions%'",
        )
      ).rows[0]!.n;
    await waitFor(async () => (await waitingOnTheLock()) >= slots, 'the lists in a slot waiting on the lock');
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(await waitingOnTheLock(), slots, 'only the lists in a slot have reached the database');
    assert.deepEqual(await listSlots(api.base), { held: slots, waiting: WAITING_PER_SLOT * slots });
    const balance = await api.get(`/api?module=account&action=balance&address=${address}`);
    assert.equal(balance.status, 200, 'an action that is not a list is answered while the lists wait');
    await locker.query('ROLLBACK');
    const statuses = (await Promise.all(lists)).map(({ status }) => status).sort();
    assert.deepEqual(statuses, [...Array.from({ length: lists.length - 1 }, () => 200), 503]);
    assert.deepEqual(await listSlots(api.base), { held: 0, waiting: 0 }, 'every slot given back');
  } finally {
    await locker.query('ROLLBACK');
    locker.release();
    await api.close();
  }
});
