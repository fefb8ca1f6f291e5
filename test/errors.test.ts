import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { BlockNotFoundError, ChainChangedError, InvalidNodeResponseError, NodeUnavailableError, RpcError } from '../src/chain/errors.js';
import { ConfigError, failureSource, isRetryable } from '../src/errors.js';
import { ReorgTooDeepError } from '../src/indexer/blocks/indexer.js';
import { createTestDatabase, testServerUrl, type TestDatabase } from './support/database.js';

let db: TestDatabase;

before(async () => {
  db = await createTestDatabase({ migrated: false });
});
after(async () => {
  await db.drop();
});

/** The error PostgreSQL answers `sql` with. */
const failureOf = (sql: string): Promise<unknown> =>
  db.pool.query(sql).then(
    () => assert.fail(`${sql} succeeded`),
    (error: unknown) => error,
  );

/** The error of a statement that raises SQLSTATE `code`, as the server would for the condition it names. */
const raised = (code: string): Promise<unknown> =>
  failureOf(`DO $$ BEGIN RAISE EXCEPTION 'raised %', '${code}' USING ERRCODE = '${code}'; END $$`);

test("the node's failures are retryable: no answer, garbage, a block it lacks yet, a chain that changed under a question", () => {
  const errors = [
    new NodeUnavailableError('http://127.0.0.1:8545', 6, 'timed out after 30000 ms'),
    new InvalidNodeResponseError('block 1', 'hash', 'is null'),
    new BlockNotFoundError(1n, 'eth_getBlockByNumber'),
    new ChainChangedError('the node changed its chain while answering (block 7)'),
  ];
  for (const error of errors) {
    assert.equal(isRetryable(error), true, error.name);
    assert.equal(failureSource(error), 'node', error.name);
  }
});

test('a JSON-RPC refusal is retryable only when the node says it cannot serve the call now', () => {
  assert.equal(isRetryable(new RpcError('eth_getBlockReceipts', -32000, 'header not found')), true);
  assert.equal(isRetryable(new RpcError('eth_call', -32602, 'BlockOutOfRangeError: block height is 0 but requested was 16')), true);
  assert.equal(isRetryable(new RpcError('debug_traceBlockByNumber', -32000, 'execution timeout')), true);
  assert.equal(
    isRetryable(new RpcError('trace_transaction', -32601, 'the method trace_transaction does not exist/is not available')),
    false,
  );
  assert.equal(isRetryable(new RpcError('eth_getBlockReceipts', -32000, 'eth_getBlockReceipts is disabled on this endpoint')), false);
});

test('programming errors, bad settings, a reorg too deep and anything unknown are fatal', () => {
  const errors: unknown[] = [
    new TypeError("Cannot read properties of undefined (reading 'hash')"),
    new RangeError('Invalid array length'),
    new Error('something unexpected'),
    new ConfigError('LAST_BLOCK (1) is below FIRST_BLOCK (2)'),
    new ReorgTooDeepError('a reorg deeper than 128 blocks'),
    'a thrown string',
    undefined,
  ];
  for (const error of errors) assert.equal(isRetryable(error), false, String(error));
});

test("PostgreSQL failures that pass are retryable and the database's: a serialization failure, a deadlock, too many connections, a refused, terminated or slow connection", async () => {
  const terminated = new pg.Client({ connectionString: db.url });
  await terminated.connect();
  terminated.on('error', () => undefined);
  const { rows } = await terminated.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  await db.pool.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
  const refused = new pg.Client({ connectionString: `${testServerUrl.replace(/:\d+$/, ':1')}/none` });
  // A server too busy to finish the connection's start-up in time: a socket that accepts and never answers.
  const silent = createServer(() => undefined);
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const slow = new pg.Client({ host: '127.0.0.1', port: (silent.address() as AddressInfo).port, connectionTimeoutMillis: 200 });
  // A pool whose every connection stays busy past the wait for one.
  const busy = new pg.Pool({ connectionString: db.url, max: 1, connectionTimeoutMillis: 200 });
  const held = await busy.connect();
  const errors = [
    await raised('40001'),
    await raised('40P01'),
    await raised('53300'),
    await terminated.query('SELECT 1').then(
      () => assert.fail('a terminated connection answered'),
      (error: unknown) => error,
    ),
    await refused.connect().then(
      () => assert.fail('port 1 accepted a connection'),
      (error: unknown) => error,
    ),
    await slow.connect().then(
      () => assert.fail('a silent socket completed a connection'),
      (error: unknown) => error,
    ),
    await busy.query('SELECT 1').then(
      () => assert.fail('a pool with no free connection answered'),
      (error: unknown) => error,
    ),
  ];
  held.release();
  await busy.end();
  silent.close();
  await terminated.end().catch(() => undefined);
  for (const error of errors) {
    assert.equal(isRetryable(error), true, (error as Error).message);
    assert.equal(failureSource(error), 'database', (error as Error).message);
  }
});

test('other PostgreSQL failures are fatal: a statement that is wrong stays wrong', async () => {
  for (const error of [await failureOf('SELECT * FROM no_such_table'), await failureOf('SELECT 1 / 0'), await raised('23505')]) {
    assert.equal(isRetryable(error), false, (error as Error).message);
  }
});
