import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ApiClient, apiClient, getOk } from '../support/http-client.js';
import { assertConformsToComponent } from '../support/openapi-conformance.js';
import { PhoenixClient } from '../support/phoenix-client.js';
import { startSextant, type RunningSextant } from '../support/sextant-process.js';
import { waitFor } from '../support/wait.js';

// `sextant start` exactly as `npm start` runs it, demo chain left moving: after the scenario, the
// chain advances in the API and on the websocket.

let dataDir: string;
let sextant: RunningSextant;
let api: ApiClient;

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'sextant-demo-live-'));
  chmodSync(dataDir, 0o755);
  sextant = await startSextant({ SEXTANT_DATA_DIR: dataDir });
  api = apiClient(sextant.baseUrl);
});
after(async () => {
  assert.equal(await sextant?.stop(), 0, 'a clean exit on SIGTERM, the demo activity stopped with it');
  rmSync(dataDir, { recursive: true, force: true });
});

test('npm start says the demo chain keeps moving, and it does: new blocks of several kinds, pushed on the websocket', async () => {
  assert.match(sextant.output(), /the demo chain keeps moving: a block of new transfers, token transfers and contract calls every 5 s/);
  const client = await PhoenixClient.connect(api.base);
  try {
    assert.deepEqual(await client.join('blocks:new_block'), ['ok', {}]);
    const { indexed_head: startHead } = await getOk(api, '/health');
    // A block every 5 s: two of them well within a minute, on a busy machine too.
    const pushed = () => client.pushes('blocks:new_block', 'new_block').filter((p) => p.block.height > startHead);
    await waitFor(() => pushed().length >= 2, 'two new blocks pushed on the websocket', { timeoutMs: 60_000 });

    const [first, second] = pushed();
    assert.equal(second.block.height, first.block.height + 1, 'pushed in order, one by one');
    assertConformsToComponent('Block', first.block, 'a new_block push of the demo');
    const listed = await getOk(api, '/api/v2/blocks');
    assert.ok(listed.items[0].height >= second.block.height, 'the block list advanced');

    const transactions = (await getOk(api, `/api/v2/blocks/${second.block.height}/transactions`)).items;
    assert.equal(transactions.length, second.block.transactions_count);
    assert.ok(transactions.length >= 5, `${transactions.length} transactions in a demo block`);
    const kinds = new Set(transactions.flatMap((t: any) => t.transaction_types));
    for (const kind of ['coin_transfer', 'token_transfer', 'contract_call']) assert.ok(kinds.has(kind), `a ${kind} among ${[...kinds]}`);
  } finally {
    client.close();
  }
});
