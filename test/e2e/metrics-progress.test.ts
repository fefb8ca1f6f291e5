import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { startAnvil, type AnvilNode } from '../../src/demo/anvil.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { apiClient, getOk } from '../support/http-client.js';
import { PhoenixClient } from '../support/phoenix-client.js';
import { parsePrometheus, sampleValue, type PromSample } from '../support/prometheus.js';
import { spawnSextant, type SextantChild } from '../support/sextant-process.js';
import { waitFor } from '../support/wait.js';

// `sextant start` catching up a real anvil chain of a few thousand blocks, in small batches so that
// the catch-up lasts long enough to be watched: its progress log lines, /health and /metrics.

const BLOCKS_MINED = 2000;
const TRANSFERS = 30;

let anvil: AnvilNode;
let db: TestDatabase;
let head: number;

async function rpc<T>(method: string, params: unknown[] = []): Promise<T> {
  const response = await fetch(anvil.rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return ((await response.json()) as { result: T }).result;
}

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function scrape(base: string): Promise<PromSample[]> {
  const response = await fetch(`${base}/metrics`);
  assert.equal(response.status, 200);
  assert.match(response.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  return parsePrometheus(await response.text());
}

/** The JSON log lines of the progress display, as logged. */
function progressLines(child: SextantChild): any[] {
  return child
    .stdout()
    .split('\n')
    .filter((l) => l.includes('"component":"progress"'))
    .map((l) => JSON.parse(l));
}

async function start(command: 'start' | 'serve', extra: Record<string, string> = {}): Promise<{ child: SextantChild; base: string }> {
  const port = await freePort();
  const child = spawnSextant([command], {
    DATABASE_URL: db.url,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    ...extra,
  });
  const base = `http://127.0.0.1:${port}`;
  await waitFor(
    async () => (await fetch(`${base}/health`).catch(() => null))?.status === 200,
    () => `the API of sextant ${command}:\n${child.output()}`,
    {
      timeoutMs: 60_000,
      intervalMs: 100,
    },
  );
  return { child, base };
}

async function stop(child: SextantChild): Promise<void> {
  assert.equal(await child.stop(), 0, child.output());
}

before(async () => {
  anvil = await startAnvil();
  db = await createTestDatabase();
  const [from, to] = await rpc<string[]>('eth_accounts');
  for (let i = 0; i < TRANSFERS; i++) await rpc('eth_sendTransaction', [{ from, to, value: '0x1' }]);
  await rpc('anvil_mine', [`0x${BLOCKS_MINED.toString(16)}`]);
  head = Number(await rpc<string>('eth_blockNumber'));
});
after(async () => {
  await anvil?.stop();
  await db?.drop();
});

test('progress log lines, /health and /metrics follow a catch-up; serve alone has the metrics from the index', async () => {
  const { child, base } = await start('start', {
    ETHEREUM_JSONRPC_HTTP_URL: anvil.rpcUrl,
    INDEXER_CATCHUP_BLOCKS_BATCH_SIZE: '5',
    INDEXER_CATCHUP_BLOCKS_CONCURRENCY: '2',
    SEXTANT_PROGRESS_INTERVAL_MS: '200',
  });
  const api = apiClient(base);
  const socket = await PhoenixClient.connect(base);
  try {
    // A moment of the catch-up, as /health reports it once the pace is measured.
    let health: any;
    await waitFor(
      async () => {
        health = await getOk(api, '/health');
        // Batches are written two at a time: a pace can be measured before the first batch, which "done" counts from, is in.
        return health.progress?.catch_up?.blocks_per_second > 0 && health.progress.catch_up.done > 0;
      },
      () => `a measured catch-up in /health:\n${child.output()}`,
      { timeoutMs: 120_000, intervalMs: 100 },
    );
    const reported = health.progress.catch_up;
    assert.equal(reported.total, head + 1, 'the catch-up runs from block 0 to the node head');
    assert.ok(reported.done > 0 && reported.done < reported.total, JSON.stringify(reported));
    assert.ok(reported.transactions_per_second >= 0 && reported.transactions_per_second <= reported.blocks_per_second);
    assert.ok(reported.seconds_left > 0, JSON.stringify(reported));
    // The rate is shown rounded to a tenth; the time left comes from the rate unrounded.
    const expectedLeft = (reported.total - reported.done) / reported.blocks_per_second;
    assert.ok(
      Math.abs(reported.seconds_left - expectedLeft) <= 1 + expectedLeft * 0.05,
      `${reported.seconds_left} s left, ${expectedLeft} expected`,
    );

    // The log line of that moment carries the same figures, in its text and its fields.
    await waitFor(
      () =>
        progressLines(child).some((line) => {
          const c = line.progress.catchUp;
          return (
            c !== undefined &&
            c.done === reported.done &&
            c.total === reported.total &&
            c.blocksPerSecond === reported.blocks_per_second &&
            c.transactionsPerSecond === reported.transactions_per_second &&
            c.secondsLeft === reported.seconds_left &&
            line.msg.includes(`catch-up: ${reported.done}/${reported.total} blocks, ${reported.blocks_per_second} blocks/s`)
          );
        }),
      () =>
        `a progress line with /health's figures ${JSON.stringify(reported)}:\n${progressLines(child)
          .slice(-3)
          .map((l) => l.msg)
          .join('\n')}`,
      { timeoutMs: 10_000, intervalMs: 50 },
    );

    const early = await scrape(base);
    assert.equal(sampleValue(early, 'sextant_node_head'), head);
    const earlyBlocks = sampleValue(early, 'sextant_indexed_blocks')!;
    const earlyLag = sampleValue(early, 'sextant_indexed_head_lag_blocks')!;
    assert.ok(earlyBlocks > 0 && earlyBlocks < head + 1, `${earlyBlocks} blocks indexed`);
    assert.ok(earlyLag > 0, `lag ${earlyLag}`);
    assert.equal(sampleValue(early, 'sextant_websocket_clients'), 1);
    assert.ok(sampleValue(early, 'sextant_db_pool_connections', { state: 'total' })! >= 1);
    assert.ok(sampleValue(early, 'sextant_db_pool_connections', { state: 'waiting' })! >= 0);
    // The scrape is a routed read itself, and holds a slot while it is answered.
    assert.ok(sampleValue(early, 'sextant_request_slots', { state: 'held' })! >= 1);
    assert.equal(sampleValue(early, 'sextant_request_slots', { state: 'waiting' }), 0);
    const healthCount = sampleValue(early, 'sextant_http_request_duration_seconds_count', {
      route: '/health',
      status: '200',
      method: 'GET',
    });
    assert.ok(healthCount !== undefined && healthCount >= 1, 'requests counted by route template');

    // Caught up: the figures have moved, the catch-up has left /health, and the log went quiet about it.
    await waitFor(async () => (await getOk(api, '/health')).indexed_head === head, 'the catch-up to end', { timeoutMs: 240_000 });
    await getOk(api, `/api/v2/blocks/${head}`);
    await waitFor(
      async () => sampleValue(await scrape(base), 'sextant_backlog', { stage: 'traces' }) === 0,
      'the trace stage to catch up',
      { timeoutMs: 120_000 },
    );
    const late = await scrape(base);
    assert.equal(sampleValue(late, 'sextant_indexed_head'), head);
    assert.equal(sampleValue(late, 'sextant_indexed_head_lag_blocks'), 0);
    assert.equal(sampleValue(late, 'sextant_indexed_blocks'), head + 1);
    assert.equal(sampleValue(late, 'sextant_indexed_transactions'), TRANSFERS);
    assert.equal(sampleValue(late, 'sextant_http_request_duration_seconds_count', { route: '/api/v2/blocks/:block_number_or_hash' }), 1);
    assert.ok(sampleValue(late, 'sextant_http_request_duration_seconds_count', { route: '/health' })! > healthCount);
    await waitFor(async () => (await getOk(api, '/health')).progress.catch_up === null, 'the catch-up to leave /health');
    const status = await getOk(api, '/api/v2/main-page/indexing-status');
    assert.equal(status.indexed_blocks_ratio, 1);
  } finally {
    socket.socket.close();
    await stop(child);
  }

  // `sextant serve` alone: the index's figures, and nothing of a node.
  const served = await start('serve');
  try {
    const alone = await scrape(served.base);
    assert.equal(sampleValue(alone, 'sextant_indexed_head'), head);
    assert.equal(sampleValue(alone, 'sextant_indexed_blocks'), head + 1);
    assert.equal(sampleValue(alone, 'sextant_node_head'), undefined);
    assert.equal(sampleValue(alone, 'sextant_websocket_clients'), 0);
    assert.equal((await getOk(apiClient(served.base), '/health')).progress, null);
  } finally {
    await stop(served.child);
  }
});
