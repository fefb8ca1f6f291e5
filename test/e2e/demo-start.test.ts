import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ApiClient, apiClient, assertFullPages, collectList, getOk } from '../support/http-client.js';
import { runSextant, startSextant, type RunningSextant } from '../support/sextant-process.js';

// `sextant start` with nothing configured, as `npm start` runs it: the demo chain, indexed into the
// embedded PostgreSQL, served over HTTP. Only the data directory is a temporary one.

let dataDir: string;
let sextant: RunningSextant;
let startedIn: number;
let api: ApiClient;

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'sextant-demo-'));
  // Run as root, the embedded server runs as the postgres OS user, which must reach the directory.
  chmodSync(dataDir, 0o755);
  const started = Date.now();
  sextant = await startSextant({ SEXTANT_DATA_DIR: dataDir });
  startedIn = Date.now() - started;
  api = apiClient(sextant.baseUrl);
});
after(async () => {
  assert.equal(await sextant.stop(), 0, 'a clean exit on SIGTERM');
  rmSync(dataDir, { recursive: true, force: true });
});

/** Every item of a list, whose pages but the last are full. */
async function allPages(path: string, filters: Record<string, string> = {}): Promise<any[]> {
  const list = await collectList(api, path, filters);
  assertFullPages(list);
  return list.items;
}

test('serves the demo chain within a minute of starting', () => {
  assert.ok(startedIn < 60_000, `started in ${startedIn} ms`);
  assert.match(sextant.output(), /api\/v2\/transactions/, 'prints URLs to try');
});

test('E2 lists every demo transaction once, over several pages', async () => {
  const items = await allPages('/api/v2/transactions');
  assert.ok(items.length > 60, `${items.length} transactions`);
  assert.equal(new Set(items.map((t) => t.hash)).size, items.length);
  const statuses = new Set(items.map((t) => t.status));
  assert.deepEqual([...statuses].sort(), ['error', 'ok']);
  assert.deepEqual([...new Set(items.map((t) => t.type))].sort(), [0, 1, 2]);
  const creations = await allPages('/api/v2/transactions', { type: 'contract_creation' });
  assert.ok(creations.length >= 4);
  assert.ok(creations.every((t) => t.to === null && t.created_contract !== null));
  const calls = await allPages('/api/v2/transactions', { type: 'contract_call' });
  assert.ok(calls.length > 10 && calls.every((t) => t.to.is_contract === true));
});

test('E5 lists the blocks of the demo chain under their miner', async () => {
  const [newest] = (await getOk(api, '/api/v2/transactions')).items;
  const withdrawals = await getOk(api, `/api/v2/blocks/${newest.block_number}/withdrawals`);
  assert.deepEqual(withdrawals, { items: [], next_page_params: null });
  const miner = (await getOk(api, `/api/v2/addresses/0x0000000000000000000000000000000000000000/blocks-validated`)).items;
  assert.ok(miner.length === 50, 'anvil credits every block to the zero address');
});

test('a second Sextant on the same data directory is refused', async () => {
  const second = await runSextant(['start'], { SEXTANT_DATA_DIR: dataDir, PORT: '0' });
  assert.equal(second.code, 1);
  assert.match(second.stderr, /^sextant: .*(already|in use|running)/m);
});
