import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { NodeUnavailableError, RpcError } from '../../src/chain/errors.js';
import { createRpcClient } from '../../src/chain/rpc.js';
import { ConfigError } from '../../src/errors.js';
import { startFaultProxy } from '../support/fault-proxy.js';
import { startReplayNode, type Recording } from '../support/replay-node.js';

const recordings: Recording[] = [
  { method: 'eth_blockNumber', params: [], result: '0x112a880' },
  { method: 'eth_getBlockByNumber', params: ['0x1', false], result: { number: '0x1' } },
  { method: 'eth_getBlockByNumber', params: ['0x2', false], result: { number: '0x2' } },
  { method: 'eth_getBlockByNumber', params: ['0x3', false], result: { number: '0x3' } },
];

const fastRetries = { retryDelayMs: 5 };

test('request sends one call and returns its result; hex params match case-insensitively', async (t) => {
  const node = await startReplayNode([...recordings, { method: 'eth_getBlockReceipts', params: ['0x112A880'], result: [] }]);
  t.after(() => node.stop());
  const client = createRpcClient({ url: node.url });
  assert.equal(await client.request('eth_blockNumber', []), '0x112a880');
  assert.deepEqual(await client.request('eth_getBlockReceipts', ['0x112a880']), []);
  assert.deepEqual(node.httpRequests, [
    { calls: 1, batch: false },
    { calls: 1, batch: false },
  ]);
});

test('batch sends one HTTP batch per chunk of batchSize and returns answers in call order', async (t) => {
  const node = await startReplayNode(recordings);
  t.after(() => node.stop());
  const client = createRpcClient({ url: node.url, batchSize: 2 });
  const calls = ['0x3', '0x1', '0x9', '0x2', '0x1'].map((number) => ({ method: 'eth_getBlockByNumber', params: [number, false] }));
  assert.deepEqual(await client.batch(calls), [{ number: '0x3' }, { number: '0x1' }, null, { number: '0x2' }, { number: '0x1' }]);
  assert.deepEqual(node.httpRequests, [
    { calls: 2, batch: true },
    { calls: 2, batch: true },
    { calls: 1, batch: true },
  ]);
  assert.deepEqual(
    node.requests.map((call) => call.params[0]),
    ['0x3', '0x1', '0x9', '0x2', '0x1'],
  );
  assert.deepEqual(await client.batch([]), []);
  assert.equal(node.httpRequests.length, 3);
});

test('a method the node does not serve is an RpcError, not retried', async (t) => {
  const node = await startReplayNode(recordings);
  t.after(() => node.stop());
  const client = createRpcClient({ url: node.url, ...fastRetries });
  await assert.rejects(client.request('trace_block', ['0x1']), (error: unknown) => {
    assert.ok(error instanceof RpcError, `not an RpcError: ${String(error)}`);
    assert.equal(error.code, -32601);
    assert.equal(error.method, 'trace_block');
    assert.equal(error.nodeMessage, 'the method trace_block does not exist/is not available');
    return true;
  });
  assert.equal(node.httpRequests.length, 1);
});

test('in a batch, the first refused call rejects the whole batch with its RpcError', async (t) => {
  const node = await startReplayNode(recordings);
  t.after(() => node.stop());
  const client = createRpcClient({ url: node.url, ...fastRetries });
  const calls = [
    { method: 'eth_blockNumber', params: [] },
    { method: 'debug_traceBlockByNumber', params: ['0x1', { tracer: 'callTracer' }] },
    { method: 'trace_block', params: ['0x1'] },
  ];
  await assert.rejects(client.batch(calls), (error: unknown) => {
    assert.ok(error instanceof RpcError, `not an RpcError: ${String(error)}`);
    assert.equal(error.method, 'debug_traceBlockByNumber');
    assert.equal(error.code, -32601);
    return true;
  });
  assert.equal(node.httpRequests.length, 1);
});

test('batchSettled answers each call on its own: results, and RpcErrors for the refused ones', async (t) => {
  const node = await startReplayNode(recordings);
  t.after(() => node.stop());
  const client = createRpcClient({ url: node.url, batchSize: 2, ...fastRetries });
  const answers = await client.batchSettled([
    { method: 'trace_block', params: ['0x1'] },
    { method: 'eth_getBlockByNumber', params: ['0x1', false] },
    { method: 'eth_blockNumber', params: [] },
  ]);
  assert.ok(answers[0] instanceof RpcError, `not an RpcError: ${String(answers[0])}`);
  assert.equal(answers[0].method, 'trace_block');
  assert.deepEqual(answers.slice(1), [{ number: '0x1' }, '0x112a880']);
  assert.equal(node.httpRequests.length, 2, 'a refusal does not stop the later chunks');
});

test('transient failures are retried until the node answers', async (t) => {
  const node = await startReplayNode(recordings, {
    faults: ['http-503', 'malformed-json', 'connection-reset', 'http-429'],
  });
  t.after(() => node.stop());
  const client = createRpcClient({ url: node.url, retryCount: 4, ...fastRetries });
  const calls = [
    { method: 'eth_getBlockByNumber', params: ['0x1', false] },
    { method: 'eth_getBlockByNumber', params: ['0x2', false] },
  ];
  assert.deepEqual(await client.batch(calls), [{ number: '0x1' }, { number: '0x2' }]);
  // The four faults took the first four attempts; the fifth was answered, as one batch again.
  assert.deepEqual(node.httpRequests, [{ calls: 2, batch: true }]);
});

test('a 429 is retried after the Retry-After the node asked for, not the shorter backoff', async (t) => {
  const node = await startReplayNode(recordings);
  const proxy = await startFaultProxy({
    target: node.url,
    seed: 1,
    rates: { 'http-429': 1 },
    limits: { 'http-429': 1 },
    retryAfterSeconds: 1,
  });
  t.after(async () => {
    await proxy.stop();
    await node.stop();
  });
  const client = createRpcClient({ url: proxy.url, retryCount: 2, ...fastRetries });
  const started = Date.now();
  assert.equal(await client.request('eth_blockNumber', []), '0x112a880');
  assert.equal(proxy.injected['http-429'], 1);
  assert.ok(Date.now() - started >= 1_000, `retried after ${Date.now() - started} ms`);
});

test('a node still failing after the retries is a NodeUnavailableError', async (t) => {
  const node = await startReplayNode(recordings, { faults: ['http-503', 'http-503', 'http-503'] });
  t.after(() => node.stop());
  const client = createRpcClient({ url: node.url, retryCount: 2, ...fastRetries });
  await assert.rejects(client.request('eth_blockNumber', []), (error: unknown) => {
    assert.ok(error instanceof NodeUnavailableError, `not a NodeUnavailableError: ${String(error)}`);
    assert.equal(error.attempts, 3);
    assert.equal(error.url, node.url);
    assert.match(error.message, /after 3 attempts \(HTTP 503\)/);
    return true;
  });
  assert.equal(node.httpRequests.length, 0);
});

test('a node that does not answer in time is a NodeUnavailableError', async (t) => {
  const node = await startReplayNode(recordings, { faults: ['no-answer', 'no-answer'] });
  t.after(() => node.stop());
  const client = createRpcClient({ url: node.url, timeoutMs: 150, retryCount: 1, ...fastRetries });
  await assert.rejects(client.request('eth_blockNumber', []), /after 2 attempts \(timed out after 150 ms\)/);
});

test('a closed port is a NodeUnavailableError naming the URL and the setting to check', async () => {
  const url = `http://127.0.0.1:${await closedPort()}`;
  const client = createRpcClient({ url, timeoutMs: 500, retryCount: 1, ...fastRetries });
  await assert.rejects(client.request('eth_blockNumber', []), (error: unknown) => {
    assert.ok(error instanceof NodeUnavailableError, `not a NodeUnavailableError: ${String(error)}`);
    assert.equal(error.attempts, 2);
    assert.ok(error.message.includes(url), error.message);
    assert.match(error.message, /ECONNREFUSED/);
    assert.match(error.message, /check ETHEREUM_JSONRPC_HTTP_URL/);
    return true;
  });
});

test('a malformed URL is a ConfigError naming it and the fix', () => {
  for (const url of ['localhost:8545', 'not a url', 'ftp://node.example:8545', '']) {
    assert.throws(
      () => createRpcClient({ url }),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError, `not a ConfigError: ${String(error)}`);
        assert.ok(error.message.includes(`"${url}"`), error.message);
        assert.match(error.message, /set ETHEREUM_JSONRPC_HTTP_URL to the node's http\(s\) endpoint/);
        assert.doesNotMatch(error.message, /\n/);
        return true;
      },
    );
  }
});

/** A port nothing listens on: bound once, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
