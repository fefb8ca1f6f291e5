import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createRpcClient } from '../../src/chain/rpc.js';
import { startAnvil, type AnvilNode } from '../../src/demo/anvil.js';
import { runScenario } from '../../src/demo/scenario.js';
import { assertSameSnapshot, snapshotDatabase, unfinishedWork, type DatabaseSnapshot } from '../support/database-snapshot.js';
import { createTestDatabase } from '../support/database.js';
import { evenRates, faultKinds, startFaultProxy, type FaultKind, type FaultProxyOptions, type FaultRates } from '../support/fault-proxy.js';
import { apiClient, getOk } from '../support/http-client.js';
import { runUntilSettled, startSextant } from '../support/sextant-process.js';
import { waitFor } from '../support/wait.js';

// Sextant indexing up to LAST_BLOCK on the demo chain, through a proxy that breaks the node's answers,
// must leave the database exactly as a run straight against the node does.

let anvil: AnvilNode;
let head: bigint;
let reference: DatabaseSnapshot;

/**
 * The share of the requests each kind of fault on its own hits. A fault in an answer's content fails
 * the whole batch it is part of (the trace stage retries a batch whole, backing off up to 15 s), so
 * those kinds hit fewer requests, to keep the run short.
 */
const singleKindRate = (kind: FaultKind): number => (CONTENT_FAULTS.has(kind) ? 0.2 : 0.3);
const CONTENT_FAULTS: ReadonlySet<FaultKind> = new Set(['missing-field', 'null-field', 'null-result', 'batch-member']);
/** A held request costs the client's whole timeout (30 s, which no setting changes), so only one is held. */
const MAX_TIMEOUTS = 1;

/**
 * The genesis block is left unbroken: a node may answer null for it (a pruned node does), and the
 * chain is then identified by its chain id alone until a later start records the genesis, so a
 * `null-result` there would leave a database without its genesis hash, by design.
 */
const spareGenesis: FaultProxyOptions['spare'] = ({ method, params }) =>
  method === 'eth_getBlockByNumber' && params[0] === '0x0' && params[1] === false;

const indexEnv = (databaseUrl: string, rpcUrl: string): Record<string, string> => ({
  DATABASE_URL: databaseUrl,
  ETHEREUM_JSONRPC_HTTP_URL: rpcUrl,
  LAST_BLOCK: head.toString(),
  INDEXER_POLL_INTERVAL_MS: '50',
  // Small batches: each block more in a batch makes a retry of the batch likelier to fail again.
  INDEXER_CATCHUP_BLOCKS_BATCH_SIZE: '3',
  // Ten runs side by side share the test server's connections (PostgreSQL's default is 100).
  POOL_SIZE: '5',
  POOL_SIZE_API: '2',
});

/** Indexes the demo chain up to `head` through `rpcUrl` into a new database, every stage to its end; returns its snapshot. */
async function indexThrough(rpcUrl: string): Promise<DatabaseSnapshot> {
  const db = await createTestDatabase({ migrated: false });
  try {
    await runUntilSettled(indexEnv(db.url, rpcUrl), () => unfinishedWork(db.pool, head));
    return await snapshotDatabase(db.pool);
  } finally {
    await db.drop();
  }
}

async function indexWithFaults(
  rates: FaultRates,
  seed: number,
  { spare = spareGenesis, limits = { timeout: MAX_TIMEOUTS } }: Pick<FaultProxyOptions, 'spare' | 'limits'> = {},
): Promise<Record<FaultKind, number>> {
  const proxy = await startFaultProxy({ target: anvil.rpcUrl, seed, rates, spare, limits });
  try {
    assertSameSnapshot(await indexThrough(proxy.url), reference, `faults ${JSON.stringify(rates)}`);
    return { ...proxy.injected };
  } finally {
    await proxy.stop();
  }
}

before(async () => {
  anvil = await startAnvil();
  await runScenario(anvil.rpcUrl);
  head = BigInt(await createRpcClient({ url: anvil.rpcUrl }).request<string>('eth_blockNumber', []));
  reference = await indexThrough(anvil.rpcUrl);
  assert.equal(reference.blocks!.rows.length, Number(head) + 1, 'the clean run indexed every block');
  assert.notEqual(reference.internal_transactions!.rows.length, 0, 'the clean run traced the blocks');
});

after(async () => {
  await anvil?.stop();
});

// The runs wait on retries far more than they compute: they run side by side.
describe('each kind of fault on its own', { concurrency: true }, () => {
  for (const [i, kind] of faultKinds.entries()) {
    test(`${kind} on ${singleKindRate(kind) * 100}% of the node's answers changes nothing in the database`, async () => {
      const injected = await indexWithFaults({ [kind]: singleKindRate(kind) }, 1000 + i);
      assert.ok(injected[kind] > 0, `no ${kind} fault was injected`);
    });
  }
});

test('10% of the answers faulty, of every kind at random, changes nothing in the database', async () => {
  const injected = await indexWithFaults(evenRates(0.1), 7);
  const kinds = faultKinds.filter((kind) => injected[kind] > 0);
  assert.ok(kinds.length >= 5, `faults of only ${kinds.join(', ')} were injected`);
});

test("token contract reads the node fails at first are read again, not taken for the contract's answer", async () => {
  const onlyTokenReads: FaultProxyOptions['spare'] = ({ method }) => method !== 'eth_call' && method !== 'eth_getCode';
  const injected = await indexWithFaults({ 'http-503': 1 }, 21, { spare: onlyTokenReads, limits: { 'http-503': 10 } });
  assert.equal(injected['http-503'], 10);
});

// Last: it mines a block, which the runs above must not see.
test('while the node is down the API serves from the database and /health says so; indexing resumes when it is back', async () => {
  const proxy = await startFaultProxy({ target: anvil.rpcUrl, seed: 11 });
  const db = await createTestDatabase({ migrated: false });
  const sextant = await startSextant(
    { DATABASE_URL: db.url, ETHEREUM_JSONRPC_HTTP_URL: proxy.url, INDEXER_POLL_INTERVAL_MS: '50' },
    120_000,
  );
  try {
    const api = apiClient(sextant.baseUrl);
    const health = async () =>
      (await getOk(api, '/health')) as { indexed_head: number | null; indexer: { node_available: boolean; last_error: string | null } };
    await waitFor(async () => (await health()).indexed_head === Number(head), `block ${head} is indexed`);

    proxy.setDown(true);
    await waitFor(async () => !(await health()).indexer.node_available, '/health reports the node unavailable');
    const down = await health();
    assert.match(down.indexer.last_error ?? '', new RegExp(proxy.url.replaceAll('.', '\\.')), 'the error names the node');
    const transactions = await getOk(api, '/api/v2/transactions');
    assert.notEqual(transactions.items.length, 0, 'E2 serves the indexed transactions');

    await createRpcClient({ url: anvil.rpcUrl }).request('evm_mine', []);
    proxy.setDown(false);
    await waitFor(async () => (await health()).indexed_head === Number(head) + 1, `the block mined while the node was away is indexed`);
    assert.equal((await health()).indexer.node_available, true);
  } finally {
    await sextant.stop();
    await db.drop();
    await proxy.stop();
  }
});
