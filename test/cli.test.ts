import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runSextant, spawnSextant } from './support/sextant-process.js';
import { waitFor } from './support/wait.js';
import { createTestDatabase, testServerUrl } from './support/database.js';
import { loadMainnetBlock18000000Recordings } from './support/mainnet-fixtures.js';
import { startReplayNode } from './support/replay-node.js';

function assertOneLineFailure(run: { code: number | null; stdout: string; stderr: string }, message: RegExp): void {
  assert.equal(run.code, 1, `exit code 1, got ${run.code}; stderr: ${run.stderr}`);
  const lines = run.stderr.trim().split('\n');
  assert.equal(lines.length, 1, `one line on stderr, got:\n${run.stderr}`);
  assert.match(lines[0]!, /^sextant: /);
  assert.match(lines[0]!, message);
  assert.doesNotMatch(run.stderr, /\n\s+at /, 'no stack trace');
}

test('--help lists the commands and the settings', async () => {
  const run = await runSextant(['--help'], {});
  assert.equal(run.code, 0);
  for (const word of ['start', 'index', 'serve', 'migrate', '--rpc-url', 'ETHEREUM_JSONRPC_HTTP_URL', 'DATABASE_URL', 'FIRST_BLOCK']) {
    assert.ok(run.stdout.includes(word), `--help mentions ${word}:\n${run.stdout}`);
  }
});

test('a malformed node URL is one line naming the variable', async () => {
  const run = await runSextant(['start'], { ETHEREUM_JSONRPC_HTTP_URL: 'localhost:8545', DATABASE_URL: `${testServerUrl}/postgres` });
  assertOneLineFailure(run, /ETHEREUM_JSONRPC_HTTP_URL \(--rpc-url\) must start with http: or https:/);
});

test('a flag overrides the environment and is checked the same way', async () => {
  const run = await runSextant(['migrate', '--port', 'eighty'], { DATABASE_URL: `${testServerUrl}/postgres` });
  assertOneLineFailure(run, /PORT \(--port\) must be a whole number/);
});

test('an unreachable node is one line naming the URL', async () => {
  const db = await createTestDatabase();
  try {
    const run = await runSextant(['index'], { ETHEREUM_JSONRPC_HTTP_URL: 'http://127.0.0.1:9', DATABASE_URL: db.url }, 120_000);
    assertOneLineFailure(run, /127\.0\.0\.1:9.*ETHEREUM_JSONRPC_HTTP_URL/);
  } finally {
    await db.drop();
  }
});

test('an unreachable database is one line naming it, without the password', async () => {
  const run = await runSextant(['migrate'], { DATABASE_URL: 'postgresql://someone:secret@127.0.0.1:9/db' });
  assertOneLineFailure(run, /cannot connect to DATABASE_URL postgresql:\/\/someone:\*\*\*@127\.0\.0\.1:9\/db/);
  assert.doesNotMatch(run.stderr, /secret/);
});

test('an unwritable data directory is one line naming it', async () => {
  const parent = mkdtempSync(join(tmpdir(), 'sextant-cli-'));
  chmodSync(parent, 0o500);
  try {
    const run = await runSextant(['migrate'], { SEXTANT_DATA_DIR: join(parent, 'data') });
    assertOneLineFailure(run, /data/);
  } finally {
    chmodSync(parent, 0o700);
    rmSync(parent, { recursive: true, force: true });
  }
});

test('serve refuses a database without the schema', async () => {
  const db = await createTestDatabase({ migrated: false });
  try {
    const run = await runSextant(['serve'], { DATABASE_URL: db.url, PORT: '0' });
    assertOneLineFailure(run, /no Sextant schema yet; run `sextant migrate`/);
  } finally {
    await db.drop();
  }
});

test('serve applies the rate limit and the request log level it is given', async () => {
  const db = await createTestDatabase();
  const child = spawnSextant(['serve'], {
    DATABASE_URL: db.url,
    PORT: '0',
    HOST: '127.0.0.1',
    API_RATE_LIMIT_DISABLED: 'false',
    API_RATE_LIMIT_BY_IP: '2',
    API_RATE_LIMIT_BY_IP_TIME_INTERVAL: '1h',
    REQUEST_LOG_LEVEL: 'info',
  });
  try {
    let base = '';
    await waitFor(
      () => {
        base = /API listening on (http:\/\/[^\s;"]+)/.exec(child.output())?.[1] ?? '';
        return base !== '';
      },
      () => `sextant serve listening:\n${child.output()}`,
    );
    const statuses = [];
    for (let n = 0; n < 3; n++) statuses.push((await fetch(`${base}/health`)).status);
    assert.deepEqual(statuses, [200, 200, 429]);
    await waitFor(
      () =>
        child
          .stdout()
          .split('\n')
          .filter((line) => line.includes('"msg":"request"')).length === 3,
      () => child.output(),
    );
  } finally {
    await child.kill();
    await db.drop();
  }
});

test('a fatal error while indexing ends `sextant index` and `sextant start` with one line naming it', async () => {
  // The node serves the block, then refuses its receipts in a way that asking again cannot change.
  const node = await startReplayNode(
    loadMainnetBlock18000000Recordings().map(({ method, params, ...answer }) => ({
      method,
      params,
      ...(method === 'eth_getBlockReceipts'
        ? { error: { code: -32000, message: 'eth_getBlockReceipts is disabled on this endpoint' } }
        : answer),
    })),
  );
  const db = await createTestDatabase({ migrated: false });
  // No compiler list to fetch: offline, its warning could come before the failure on a slow machine.
  const env = {
    ETHEREUM_JSONRPC_HTTP_URL: node.url,
    DATABASE_URL: db.url,
    FIRST_BLOCK: '18000000',
    LAST_BLOCK: '18000000',
    PORT: '0',
    SOLC_BIN_API_URL: 'none',
  };
  try {
    for (const command of ['index', 'start']) {
      const run = await runSextant([command], env, 60_000);
      assertOneLineFailure(
        run,
        /^sextant: RpcError: eth_getBlockReceipts failed on the node: eth_getBlockReceipts is disabled on this endpoint/,
      );
      assert.doesNotMatch(run.stdout, /"level":40/, `${command}: no warning, nothing was retried`);
    }
  } finally {
    await node.stop();
    await db.drop();
  }
});
