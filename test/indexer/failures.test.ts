import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { pino, type Logger } from 'pino';
import { createRpcClient, type RpcClient } from '../../src/chain/rpc.js';
import { startAnvil, type AnvilNode } from '../../src/demo/anvil.js';
import { startIndexer } from '../../src/indexer/blocks/indexer.js';
import { startTraceStage, type TraceStageOptions } from '../../src/indexer/stages/trace-stage.js';
import { startApi } from '../api/http.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy.js';
import { testIndexerOptions } from '../support/indexer-options.js';
import { waitFor } from '../support/wait.js';

// A fatal error (a bug) stops the indexer or a stage at once, with that error; a retryable one (a node
// that times out, a transaction the database gives up) is waited out, and the status says whose it was.

let anvil: AnvilNode;
let client: RpcClient;
let head: bigint;

before(async () => {
  anvil = await startAnvil();
  client = createRpcClient({ url: anvil.rpcUrl });
  await client.request('anvil_mine', ['0x14', '0x1']);
  head = BigInt(await client.request<string>('eth_blockNumber', []));
});
after(async () => {
  await anvil.stop();
});

/** A logger that keeps the messages of the warnings it is given. */
function warningLog(): { logger: Logger; warnings: string[] } {
  const warnings: string[] = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => void warnings.push((JSON.parse(line) as { msg: string }).msg) });
  return { logger, warnings };
}

type Query = (sql: string) => Promise<unknown>;

/**
 * A pool on the test database whose connections run `instead` in place of each statement starting
 * with `statement`, while `failing()` says so: how a test makes a writer fail. Counts the statements replaced.
 */
function failingPool(db: TestDatabase, statement: string, instead: (query: Query) => Promise<unknown>, failing = () => true) {
  let replaced = 0;
  const pool = new pg.Pool({ connectionString: db.url, max: 4 });
  pool.on('connect', (connection) => {
    const query = connection.query.bind(connection) as (...args: unknown[]) => Promise<unknown>;
    Object.assign(connection, {
      query: (...args: unknown[]) => {
        if (typeof args[0] !== 'string' || !args[0].startsWith(statement) || !failing()) return query(...args);
        replaced++;
        return instead(query);
      },
    });
  });
  return { pool, replaced: () => replaced };
}

/** A client whose first request for `method` the node holds unanswered: it times out after 500 ms. */
async function timingOutOnce(method: (name: string) => boolean): Promise<{ proxy: FaultProxy; client: RpcClient }> {
  const proxy = await startFaultProxy({
    target: anvil.rpcUrl,
    seed: 1,
    rates: { timeout: 1 },
    limits: { timeout: 1 },
    spare: (call) => !method(call.method),
  });
  return { proxy, client: createRpcClient({ url: proxy.url, timeoutMs: 500, retryCount: 0 }) };
}

const traceStageOptions = (db: TestDatabase, overrides: Partial<TraceStageOptions>): TraceStageOptions => ({
  pool: db.pool,
  client,
  traceMethod: 'trace_block',
  logger: pino({ level: 'silent' }),
  batchSize: 5,
  concurrency: 1,
  pollIntervalMs: 20,
  backoff: { initialMs: 10, maxMs: 100 },
  ...overrides,
});

const untracedCount = async (db: TestDatabase): Promise<number> =>
  (await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM blocks WHERE consensus AND traced_at IS NULL')).rows[0]!.n;

test('a TypeError thrown by the block writer stops the indexer at once, with that error, without a retry', async () => {
  const db = await createTestDatabase();
  const bug = failingPool(db, 'DELETE FROM blocks', () =>
    Promise.reject(new TypeError("Cannot read properties of undefined (reading 'hash')")),
  );
  const { logger, warnings } = warningLog();
  try {
    // One batch in flight: the writer is asked once before the indexer stops.
    const indexer = startIndexer(await testIndexerOptions(db, client, head, { pool: bug.pool, logger, concurrency: 1 }));
    await assert.rejects(indexer.done, { name: 'TypeError', message: "Cannot read properties of undefined (reading 'hash')" });
    assert.equal(bug.replaced(), 1, 'the write is not tried again');
    assert.deepEqual(warnings, [], 'no warning: nothing was retried');
    assert.equal(indexer.status.phase, 'stopped');
  } finally {
    await bug.pool.end();
    await db.drop();
  }
});

test('a TypeError thrown by the trace writer stops the trace stage at once, with that error, without a retry', async () => {
  const db = await createTestDatabase();
  await startIndexer(await testIndexerOptions(db, client, head)).done;
  const bug = failingPool(db, 'UPDATE blocks SET traced_at', () => Promise.reject(new TypeError('traces.map is not a function')));
  const { logger, warnings } = warningLog();
  try {
    const stage = startTraceStage(traceStageOptions(db, { pool: bug.pool, logger }));
    await assert.rejects(stage.done, { name: 'TypeError', message: 'traces.map is not a function' });
    await assert.rejects(stage.drained(), TypeError, 'whoever waits for the stage to drain hears of the failure');
    assert.equal(bug.replaced(), 1, 'the write is not tried again');
    assert.deepEqual(warnings, [], 'no warning: nothing was retried');
  } finally {
    await bug.pool.end();
    await db.drop();
  }
});

test('a node that times out is waited out: the indexer retries and indexes every block', async () => {
  const db = await createTestDatabase();
  const slow = await timingOutOnce((method) => method.startsWith('eth_getBlock'));
  const { logger, warnings } = warningLog();
  try {
    const indexer = startIndexer(await testIndexerOptions(db, client, head, { client: slow.client, logger }));
    await indexer.done;
    assert.equal(slow.proxy.injected.timeout, 1);
    assert.match(warnings.join('\n'), /fetching blocks from \d+: no answer from the JSON-RPC node .* \(timed out after 500 ms\)/);
    const { rows } = await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM blocks WHERE consensus');
    assert.equal(rows[0]!.n, Number(head) + 1);
    assert.deepEqual(indexer.status.node, { available: true, error: null }, 'the node answers again');
    assert.match(indexer.status.lastError ?? '', /timed out after 500 ms/);
  } finally {
    await slow.proxy.stop();
    await db.drop();
  }
});

test('a node that times out is waited out by a stage too: every block is traced', async () => {
  const db = await createTestDatabase();
  await startIndexer(await testIndexerOptions(db, client, head)).done;
  const slow = await timingOutOnce((method) => method === 'trace_block');
  const { logger, warnings } = warningLog();
  const stage = startTraceStage(traceStageOptions(db, { client: slow.client, logger }));
  try {
    await waitFor(async () => (await untracedCount(db)) === 0, 'every block is traced');
    assert.equal(slow.proxy.injected.timeout, 1);
    assert.match(warnings.join('\n'), /tracing blocks: no answer from the JSON-RPC node .* \(timed out after 500 ms\)/);
  } finally {
    await stage.stop();
    await slow.proxy.stop();
    await db.drop();
  }
});

test('a transaction the database gives up (a serialization failure) is retried, and /health puts it down to the database', async () => {
  const db = await createTestDatabase();
  let failing = true;
  const conflict = failingPool(
    db,
    'DELETE FROM blocks',
    (query) =>
      query(
        "DO $$ BEGIN RAISE EXCEPTION 'could not serialize access due to concurrent update' USING ERRCODE = 'serialization_failure'; END $$",
      ),
    () => failing,
  );
  const indexer = startIndexer(await testIndexerOptions(db, client, head, { pool: conflict.pool }));
  const api = await startApi(db.pool, { indexerStatus: indexer.status });
  try {
    await waitFor(() => !indexer.status.database.available, 'the indexer finds the database failing');
    const down = (await api.get('/health')).body.indexer;
    assert.equal(down.database_available, false);
    assert.match(down.database_error, /^writing blocks: could not serialize access/);
    assert.deepEqual([down.node_available, down.node_error], [true, null], 'the node is not blamed');
    assert.equal(down.last_error, down.database_error);

    failing = false;
    await indexer.done;
    const { body } = await api.get('/health');
    assert.equal(body.indexed_head, Number(head));
    assert.deepEqual([body.indexer.database_available, body.indexer.database_error], [true, null], 'the database answers again');
    assert.match(body.indexer.last_error, /could not serialize access/);
  } finally {
    await indexer.stop();
    await api.close();
    await conflict.pool.end();
    await db.drop();
  }
});
