import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import type { Hex } from 'viem';
import { buildApi } from '../../src/api/server.js';
import { createRpcClient } from '../../src/chain/rpc.js';
import { startAnvil, type AnvilNode } from '../../src/demo/anvil.js';
import { runScenario } from '../../src/demo/scenario.js';
import {
  collectEndpointSnapshot,
  firstDifference,
  indexedSubjects,
  injectedApi,
  snapshotDifferences,
  type ChainSubjects,
  type EndpointSnapshot,
} from '../support/endpoint-snapshot.js';
import { apiClient, getOk } from '../support/http-client.js';
import { waitForMined } from '../support/mined.js';
import { PhoenixClient } from '../support/phoenix-client.js';
import { startReplicatedCluster, type ReplicatedCluster } from '../support/replicated-cluster.js';
import { runSextant, startSextant, type RunningSextant } from '../support/sextant-process.js';
import { waitFor } from '../support/wait.js';

// One `sextant index` writes a primary; two `sextant serve` processes read its streaming replica
// (DATABASE_READ_ONLY_API_URL) and listen for the indexer's changes on the primary (DATABASE_URL).
// Their shared answers are kept ten minutes unless a change comes: within the tests' waits, only the
// change feed can replace one.

let cluster: ReplicatedCluster | undefined;
let anvil: AnvilNode | undefined;
let primary: pg.Pool | undefined;
const serving: RunningSextant[] = [];

async function indexUpTo(head: bigint): Promise<void> {
  const env = { DATABASE_URL: cluster!.primaryUrl, ETHEREUM_JSONRPC_HTTP_URL: anvil!.rpcUrl, LAST_BLOCK: head.toString() };
  const run = await runSextant(['index'], env, 240_000);
  assert.equal(run.code, 0, `sextant index ran to its end:\n${run.stdout}${run.stderr}`);
}

before(async () => {
  cluster = await startReplicatedCluster();
  anvil = await startAnvil();
  await runScenario(anvil.rpcUrl);
  await indexUpTo(BigInt(await createRpcClient({ url: anvil.rpcUrl }).request<string>('eth_blockNumber', [])));
  primary = new pg.Pool({ connectionString: cluster.primaryUrl, max: 4 });
  const env = {
    DATABASE_URL: cluster.primaryUrl,
    DATABASE_READ_ONLY_API_URL: cluster.replicaUrl,
    PORT: '0',
    HOST: '127.0.0.1',
    API_SHARED_ANSWERS_MAX_AGE_MS: '600000',
  };
  for (let n = 0; n < 2; n++) serving.push(await startSextant(env, 120_000, 'serve'));
});

after(async () => {
  // Each step on its own: a failure of one must not leave the others running.
  for (const process of serving) await process.stop().catch(() => undefined);
  await primary?.end().catch(() => undefined);
  await anvil?.stop().catch(() => undefined);
  await cluster?.destroy();
});

test('/health of a replica-serving process reports the replica and its lag', async () => {
  await cluster!.caughtUp();
  for (const { baseUrl } of serving) {
    const health = await getOk(apiClient(baseUrl), '/health');
    assert.equal(health.indexer, null, 'serve runs no indexer');
    assert.ok(health.replica !== null, 'the API reads a replica');
    assert.match(health.replica.replayed_lsn, /^[0-9A-F]+\/[0-9A-F]+$/);
    assert.equal(typeof health.replica.lag_seconds, 'number');
    assert.ok(health.replica.replay_backlog_bytes >= 0);
  }
});

test('two processes serving the replica answer every request as the primary does, once it caught up', async () => {
  await cluster!.caughtUp();
  const subjects: ChainSubjects = await indexedSubjects(primary!);
  assert.ok(subjects.transactions.length > 10, `the demo chain was indexed (${subjects.transactions.length} transactions)`);
  const api = await buildApi({ pool: primary! });
  let expected: EndpointSnapshot;
  try {
    expected = await collectEndpointSnapshot(injectedApi(api), subjects);
  } finally {
    await api.close();
  }
  const answers = await Promise.all(serving.map(({ baseUrl }) => collectEndpointSnapshot(apiClient(baseUrl), subjects)));
  for (const [n, actual] of answers.entries()) {
    const differences = snapshotDifferences(actual, expected);
    assert.deepEqual(
      differences.map((path) => `${path}: ${firstDifference(actual.get(path), expected.get(path))}`),
      [],
      `serve process ${n + 1} answers as the primary`,
    );
    assert.equal(actual.size, expected.size);
  }
});

test('a websocket client of each replica-serving process receives new_block when the indexer writes a block', async () => {
  const clients = await Promise.all(serving.map(({ baseUrl }) => PhoenixClient.connect(baseUrl)));
  try {
    for (const client of clients) assert.deepEqual(await client.join('blocks:new_block'), ['ok', {}]);
    const rpc = createRpcClient({ url: anvil!.rpcUrl });
    const [from, to] = await rpc.request<string[]>('eth_accounts', []);
    await waitForMined(rpc, await rpc.request<Hex>('eth_sendTransaction', [{ from, to, value: '0x1' }]));
    const head = BigInt(await rpc.request<string>('eth_blockNumber', []));
    await indexUpTo(head);
    for (const [n, client] of clients.entries()) {
      await waitFor(
        () => client.pushes('blocks:new_block', 'new_block').some((p) => BigInt(p.block.height) === head),
        `process ${n + 1} pushed block ${head}`,
        { timeoutMs: 60_000 },
      );
      const pushed = client.pushes('blocks:new_block', 'new_block').find((p) => BigInt(p.block.height) === head);
      // Read from the replica once it had replayed the write: the block as the primary has it.
      assert.equal(pushed.block.transactions_count, 1);
    }
  } finally {
    for (const client of clients) client.close();
  }
});

test('the shared answers of each replica-serving process show the block the indexer writes next', async () => {
  const rpc = createRpcClient({ url: anvil!.rpcUrl });
  const homeBlocks = async (baseUrl: string): Promise<{ height: number; transactions_count: number }[]> =>
    getOk(apiClient(baseUrl), '/api/v2/main-page/blocks');
  const shownBefore = await Promise.all(serving.map(({ baseUrl }) => homeBlocks(baseUrl)));
  const [from, to] = await rpc.request<string[]>('eth_accounts', []);
  await waitForMined(rpc, await rpc.request<Hex>('eth_sendTransaction', [{ from, to, value: '0x1' }]));
  await waitForMined(rpc, await rpc.request<Hex>('eth_sendTransaction', [{ from, to, value: '0x2' }]));
  const head = Number(await rpc.request<string>('eth_blockNumber', []));
  assert.ok(shownBefore.every((blocks) => blocks[0]!.height < head));
  await indexUpTo(BigInt(head));
  for (const [n, { baseUrl }] of serving.entries()) {
    await waitFor(async () => (await homeBlocks(baseUrl))[0]!.height === head, `process ${n + 1} shows block ${head}`, {
      timeoutMs: 60_000,
    });
    // Computed once the replica had replayed the write: the block as the primary has it.
    assert.equal((await homeBlocks(baseUrl))[0]!.transactions_count, 1);
    const transactions = await getOk(apiClient(baseUrl), '/api/v2/main-page/transactions');
    assert.equal(transactions[0].block_number, head);
  }
});
