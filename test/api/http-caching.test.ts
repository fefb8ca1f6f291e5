import assert from 'node:assert/strict';
import { type IncomingHttpHeaders, request } from 'node:http';
import { after, before, test } from 'node:test';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { complainAbout } from '../../src/chain/node-fields.js';
import { decodeParityTraces } from '../../src/chain/parity-traces.js';
import type { BlockTraces, Hex } from '../../src/model.js';
import { writeBlockBundles } from '../../src/store/write-blocks.js';
import { writeBlockTraces } from '../../src/store/write-traces.js';
import { type TestDatabase, createTestDatabase } from '../support/database.js';
import { bundleFor, recordedParityBlocks } from '../support/trace-fixtures.js';
import { type RunningApi, startApi } from './http.js';

// Two traced mainnet blocks (trace_block recordings); the finality depth is the distance between
// them, so that the lower one is final and the higher one, the indexed head, is not.
const [low, high] = [...recordedParityBlocks].sort((a, b) => (a.number < b.number ? -1 : 1));
const firstTransaction = (block: typeof low) => block!.traces.find((t) => t.transactionHash !== null && t.transactionHash !== undefined)!;

let db: TestDatabase;
let api: RunningApi;

before(async () => {
  db = await createTestDatabase();
  const traces: BlockTraces[] = [];
  for (const { number, traces: frames } of [low!, high!]) {
    const blockHash = frames[0].blockHash as Hex;
    const tops = frames.filter((t) => t.type !== 'reward' && t.traceAddress.length === 0);
    const transactions = tops.map((t) => ({ hash: t.transactionHash, input: t.action.input ?? t.action.init }));
    await writeBlockBundles(db.pool, [bundleFor(number, blockHash, transactions)]);
    traces.push({ blockHash, blockNumber: number, ...decodeParityTraces(frames, blockHash, complainAbout('fixture')) });
  }
  await writeBlockTraces(db.pool, traces);
  api = await startApi(db.pool, { finalityDepth: Number(high!.number - low!.number) });
});

after(async () => {
  await api?.close();
  await db?.drop();
});

interface RawAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** A request over real HTTP whose body comes back as sent, not decoded as fetch would. */
function send(path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<RawAnswer> {
  const url = new URL(path, api.base);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path: url.pathname + url.search, method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('an answer has a strong ETag; If-None-Match with it is a 304 without a body, another tag the full answer', async () => {
  const first = await send('/api/v2/transactions');
  assert.equal(first.status, 200);
  const etag = first.headers.etag!;
  assert.match(etag, /^"[^"]+"$/, 'a strong tag, not W/');
  const again = await send('/api/v2/transactions');
  assert.equal(again.headers.etag, etag, 'the same body, the same tag');

  const notModified = await send('/api/v2/transactions', { 'if-none-match': etag });
  assert.equal(notModified.status, 304);
  assert.equal(notModified.body.length, 0);
  assert.equal(notModified.headers.etag, etag);

  const stale = await send('/api/v2/transactions', { 'if-none-match': '"another"' });
  assert.equal(stale.status, 200);
  assert.deepEqual(stale.body, first.body);
  const otherPage = await send('/api/v2/transactions?block_number=1&index=0&items_count=50');
  assert.notEqual(otherPage.headers.etag, etag);
});

test('gzip and brotli when asked: the decoded bodies equal the plain one, with the same ETag', async () => {
  const plain = await send('/api/v2/transactions');
  assert.equal(plain.headers['content-encoding'], undefined);
  assert.ok(plain.body.length > 1024, 'a body above the compression threshold');

  const gzip = await send('/api/v2/transactions', { 'accept-encoding': 'gzip' });
  assert.equal(gzip.headers['content-encoding'], 'gzip');
  assert.deepEqual(gunzipSync(gzip.body), plain.body);

  const br = await send('/api/v2/transactions', { 'accept-encoding': 'gzip, deflate, br' });
  assert.equal(br.headers['content-encoding'], 'br');
  assert.deepEqual(brotliDecompressSync(br.body), plain.body);
  assert.ok(br.body.length < plain.body.length / 3, `${br.body.length} bytes of ${plain.body.length}`);

  for (const answer of [gzip, br]) {
    assert.equal(answer.headers.etag, plain.headers.etag);
    assert.match(String(answer.headers.vary), /accept-encoding/i);
  }
  const small = await send('/health', { 'accept-encoding': 'gzip, br' });
  assert.equal(small.headers['content-encoding'], undefined, 'a body under the threshold goes as it is');
});

test('Cache-Control: a final block and a final trace are kept a day; the head, first pages and errors briefly or never', async () => {
  const cacheControl = async (path: string) => (await send(path)).headers['cache-control'];
  const final = 'public, max-age=86400';
  const moving = 'public, max-age=5';
  assert.equal(await cacheControl(`/api/v2/blocks/${low!.number}/withdrawals`), final);
  assert.equal(await cacheControl(`/api/v2/blocks/${high!.number}/withdrawals`), moving, 'the head can still be reorged');
  assert.equal(await cacheControl(`/api/v2/blocks/${high!.traces[0].blockHash}/withdrawals`), final, 'a hash names one block for good');

  const lowTrace = await send(`/api/v2/transactions/${firstTransaction(low).transactionHash}/raw-trace`);
  assert.equal(lowTrace.status, 200);
  assert.ok(JSON.parse(lowTrace.body.toString()).length > 0);
  assert.equal(lowTrace.headers['cache-control'], final);
  assert.equal(await cacheControl(`/api/v2/transactions/${firstTransaction(high).transactionHash}/raw-trace`), moving);

  assert.equal(await cacheControl('/api/v2/transactions'), moving);
  assert.equal(await cacheControl(`/api/v2/transactions/0x${'ab'.repeat(32)}/raw-trace`), moving, 'a 404');
  assert.equal(await cacheControl('/api/v2/transactions?type=nope'), 'public, max-age=3600', 'a 422');
  assert.equal(await cacheControl(`/api/v2/blocks/${low!.number + 1n}/withdrawals`), moving, 'a height not indexed yet');
});

test('without a finality depth nothing is kept long', async () => {
  const unbounded = await startApi(db.pool);
  try {
    const answer = await unbounded.get(`/api/v2/blocks/${low!.number}/withdrawals`);
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get('cache-control'), 'public, max-age=5');
  } finally {
    await unbounded.close();
  }
});
