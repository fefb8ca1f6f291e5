import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { Writable } from 'node:stream';
import { after, before, test } from 'node:test';
import pg from 'pg';
import WebSocket from 'ws';
import { pino } from 'pino';
import { type TestDatabase, createTestDatabase } from '../support/database.js';
import { type RunningApi, startApi } from './http.js';
import { clientErrorHandler } from '../../src/api/http-hygiene.js';

/** What the API answers around its routes: JSON bodies and nosniff everywhere, bodies refused, rate limits, its log lines. */

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

interface RawAnswer {
  head: string;
  body: string;
  /** Bytes of the request written before the server closed the connection. */
  written: number;
}

/**
 * Writes `request` on a new connection (then `bodyBytes` more, 64 KiB at a time, while the
 * connection lasts) and reads until the server closes it.
 */
function rawExchange(base: string, request: string, bodyBytes = 0): Promise<RawAnswer> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    let written = 0;
    let closed = false;
    const chunk = Buffer.alloc(64 * 1024, 'x');
    const writeBody = () => {
      while (!closed && written < bodyBytes) {
        written += chunk.length;
        if (!socket.write(chunk)) return void socket.once('drain', writeBody);
      }
    };
    socket.on('connect', () => {
      socket.write(request);
      writeBody();
    });
    socket.on('data', (data: Buffer) => chunks.push(data));
    // The server closing while the body is still being written resets the connection: expected here.
    socket.on('error', () => undefined);
    socket.on('close', () => {
      closed = true;
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      if (split < 0) return reject(new Error(`no answer: ${JSON.stringify(text)}`));
      resolve({ head: text.slice(0, split), body: text.slice(split + 4), written });
    });
  });
}

const statusOf = (answer: RawAnswer) => Number(answer.head.split(' ')[1]);

test('a GET with a 20 MB body is refused with a JSON 413 before the body is read, and the connection closed', async () => {
  const size = 20 * 1024 * 1024;
  const answer = await rawExchange(
    api.base,
    `GET /api/v2/transactions HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: ${size}\r\n\r\n`,
    size,
  );
  assert.equal(statusOf(answer), 413);
  assert.match(answer.head, /x-content-type-options: nosniff/i);
  assert.equal(typeof JSON.parse(answer.body).message, 'string');
  assert.ok(answer.written < size / 2, `${answer.written} bytes of ${size} written before the server closed the connection`);
});

test('a chunked body and a POST body are refused the same way; a GET with Content-Length: 0 is served', async () => {
  const chunked = await rawExchange(
    api.base,
    'GET /health HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n',
  );
  assert.equal(statusOf(chunked), 413);
  const post = await fetch(`${api.base}/api/v2/transactions`, {
    method: 'POST',
    body: '{',
    headers: { 'content-type': 'application/json' },
  });
  assert.equal(post.status, 413);
  assert.equal(typeof (await post.json()).message, 'string');
  const empty = await rawExchange(api.base, 'GET /health HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
  assert.equal(statusOf(empty), 200);
});

test('requests Node answers before routing get JSON too: no Host, an unparsable request line, headers too large', async () => {
  const noHost = await rawExchange(api.base, 'GET /health HTTP/1.1\r\n\r\n');
  assert.equal(statusOf(noHost), 400);
  assert.match(JSON.parse(noHost.body).message, /Host/);
  assert.match(noHost.head, /x-content-type-options: nosniff/i);

  const garbage = await rawExchange(api.base, 'NOT HTTP AT ALL\r\n\r\n');
  assert.equal(statusOf(garbage), 400);
  assert.equal(typeof JSON.parse(garbage.body).message, 'string');
  assert.match(garbage.head, /x-content-type-options: nosniff/i);

  const huge = await rawExchange(api.base, `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
  assert.equal(statusOf(huge), 431);
  assert.equal(typeof JSON.parse(huge.body).message, 'string');

  // HTTP/1.0 needs no Host.
  const old = await rawExchange(api.base, 'GET /health HTTP/1.0\r\n\r\n');
  assert.equal(statusOf(old), 200);
});

test('a request that asks to upgrade to h2c is answered as HTTP/1.1, in JSON, as curl --http2 sends it; a websocket upgrade still upgrades', async () => {
  const upgrade = 'Connection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\n';
  const health = await rawExchange(api.base, `GET /health HTTP/1.1\r\nHost: x\r\n${upgrade}\r\n`);
  assert.equal(statusOf(health), 200, health.head);
  assert.match(health.head, /content-type: application\/json/i);
  assert.match(health.head, /connection: close/i);
  assert.equal(typeof JSON.parse(health.body).indexed_head, 'object');
  const served = await api.get('/api/v2/stats');
  const stats = await rawExchange(api.base, `GET /api/v2/stats HTTP/1.1\r\nHost: x\r\n${upgrade}\r\n`);
  assert.equal(statusOf(stats), 200);
  assert.equal(JSON.parse(stats.body).total_blocks, served.body.total_blocks);
  const missing = await rawExchange(api.base, `GET /api/v2/nothing-here HTTP/1.1\r\nHost: x\r\n${upgrade}\r\n`);
  assert.equal(statusOf(missing), 404);
  assert.deepEqual(JSON.parse(missing.body), { message: 'Not found' });
  const head = await rawExchange(api.base, `HEAD /health HTTP/1.1\r\nHost: x\r\n${upgrade}\r\n`);
  assert.equal(statusOf(head), 200);
  assert.equal(head.body, '');

  const socket = new WebSocket(`${api.base.replace('http', 'ws')}/socket/v2/websocket?vsn=2.0.0`);
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  socket.close();
});

test("a request whose headers do not arrive in time gets Node's 408 in JSON", async () => {
  // Node's own timeout, shortened here: the API keeps Node's (60 s for the headers).
  const server = createServer({ headersTimeout: 200, requestTimeout: 300, connectionsCheckingInterval: 50 }, () =>
    assert.fail('no request reaches the handler'),
  );
  server.on('clientError', clientErrorHandler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const answer = await rawExchange(`http://127.0.0.1:${port}`, 'GET /health HTTP/1.1\r\nHost: x\r\n');
    assert.equal(statusOf(answer), 408);
    assert.equal(typeof JSON.parse(answer.body).message, 'string');
    assert.match(answer.head, /x-content-type-options: nosniff/i);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

test('a HEAD Node cannot parse is answered without a body', async () => {
  const answer = await rawExchange(api.base, `HEAD /health?\u00ff HTTP/1.1\r\nHost: x\r\n\r\n`);
  assert.equal(statusOf(answer), 400);
  assert.equal(answer.body, '');
});

test('every kind of answer says nosniff: data, 404, 422, malformed URL', async () => {
  for (const path of ['/health', '/api/v2/transactions', '/api/v2/nope', '/api/v2/transactions?index=1e3', '/api/v2/blocks/%zz']) {
    const response = await fetch(api.base + path);
    assert.equal(response.headers.get('x-content-type-options'), 'nosniff', path);
    assert.match(response.headers.get('content-type') ?? '', /^application\/json/, path);
  }
});

test('the rate limit: a 429 with Retry-After, x-ratelimit-* headers and a JSON body once a client IP is over it', async () => {
  const limited = await startApi(db.pool, { rateLimit: { max: 3, intervalMs: 60_000, allowList: [] } });
  try {
    for (let n = 0; n < 3; n++) {
      const response = await limited.get('/health');
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('x-ratelimit-limit'), '3');
      assert.equal(response.headers.get('x-ratelimit-remaining'), String(2 - n));
    }
    const refused = await limited.get('/api/v2/transactions');
    assert.equal(refused.status, 429);
    assert.match(refused.body.message, /Rate limit exceeded/);
    assert.ok(Number(refused.headers.get('retry-after')) > 0);
    assert.ok(Number(refused.headers.get('x-ratelimit-reset')) > 0);
    assert.equal(refused.headers.get('x-ratelimit-remaining'), '0');
    assert.equal(refused.headers.get('cache-control'), 'no-store');
    assert.equal(refused.headers.get('x-content-type-options'), 'nosniff');
  } finally {
    await limited.close();
  }
});

test('a whitelisted IP is not limited', async () => {
  const limited = await startApi(db.pool, { rateLimit: { max: 1, intervalMs: 60_000, allowList: ['127.0.0.1'] } });
  try {
    for (let n = 0; n < 5; n++) assert.equal((await limited.get('/health')).status, 200);
  } finally {
    await limited.close();
  }
});

/** A pino logger whose lines (but the one on listen) land in an array. */
function capturedLogger(): { logger: pino.Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const text of chunk.toString('utf8').split('\n').filter(Boolean)) {
        const line = JSON.parse(text) as Record<string, unknown>;
        // Fastify's own line on listen, not about requests.
        if (!String(line.msg).startsWith('Server listening')) lines.push(line);
      }
      done();
    },
  });
  return { logger: pino({ level: 'debug' }, stream), lines };
}

test('one log line per request, at the level chosen, with method, URL, status and time; none when silent', async () => {
  const { logger, lines } = capturedLogger();
  const logged = await startApi(db.pool, { logger, requestLogLevel: 'info' });
  try {
    await logged.get('/api/v2/transactions');
    await logged.get('/api/v2/transactions?index=1e3');
    await logged.get('/api/v2/nope');
  } finally {
    await logged.close();
  }
  const requestLines = lines.filter((line) => line.msg === 'request');
  assert.deepEqual(
    requestLines.map((line) => [line.level, line.method, line.url, line.statusCode]),
    [
      [30, 'GET', '/api/v2/transactions', 200],
      [30, 'GET', '/api/v2/transactions?index=1e3', 422],
      [30, 'GET', '/api/v2/nope', 404],
    ],
  );
  assert.ok(requestLines.every((line) => typeof line.responseTime === 'number'));
  assert.equal(lines.length, requestLines.length, `other lines: ${JSON.stringify(lines.filter((line) => line.msg !== 'request'))}`);

  const silent = capturedLogger();
  const quiet = await startApi(db.pool, { logger: silent.logger, requestLogLevel: 'silent' });
  try {
    await quiet.get('/api/v2/transactions');
  } finally {
    await quiet.close();
  }
  assert.deepEqual(silent.lines, []);
});

test('a database outage warns once, with its cause, not once per request', async () => {
  const { logger, lines } = capturedLogger();
  const pool = new pg.Pool({ connectionString: 'postgresql://postgres@127.0.0.1:1/none', connectionTimeoutMillis: 2000 });
  const down = await startApi(pool, { logger, requestLogLevel: 'silent' });
  try {
    for (let n = 0; n < 5; n++) assert.equal((await down.get('/api/v2/transactions')).status, 503);
  } finally {
    await down.close();
    await pool.end();
  }
  assert.equal(lines.length, 1, JSON.stringify(lines));
  assert.equal(lines[0]!.level, 40);
  assert.match(JSON.stringify(lines[0]!.err), /ECONNREFUSED/);
});

test('an unexpected failure is logged once at error level with its stack', async () => {
  const { logger, lines } = capturedLogger();
  const broken = { query: async () => Promise.reject(new TypeError('something internal broke')) };
  const api500 = await startApi(broken as unknown as pg.Pool, { logger, requestLogLevel: 'silent' });
  try {
    assert.equal((await api500.get('/api/v2/transactions')).status, 500);
  } finally {
    await api500.close();
  }
  assert.equal(lines.length, 1, JSON.stringify(lines));
  assert.equal(lines[0]!.level, 50);
  assert.match(String((lines[0]!.err as { stack: string }).stack), /something internal broke/);
});
