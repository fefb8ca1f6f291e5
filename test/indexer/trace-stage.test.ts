import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { pino } from 'pino';
import { type Address, createPublicClient, createWalletClient, http, parseEther } from 'viem';
import { createRpcClient, type RpcCall, type RpcClient } from '../../src/chain/rpc.js';
import { startAnvil, type AnvilNode } from '../../src/demo/anvil.js';
import { DemoCaller } from '../../src/demo/artifacts.js';
import { runScenario, type ScenarioResult } from '../../src/demo/scenario.js';
import { startIndexer } from '../../src/indexer/blocks/indexer.js';
import { startTraceStage, type TraceStageOptions } from '../../src/indexer/stages/trace-stage.js';
import { type RunningApi, collectList, startApi } from '../api/http.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { testIndexerOptions } from '../support/indexer-options.js';
import { waitFor } from '../support/wait.js';

/** A Parity-style trace frame as anvil serves it. */
interface NodeTrace {
  type: string;
  action: Record<string, string>;
  result: Record<string, string> | null;
  error?: string;
  traceAddress: number[];
  transactionHash: string;
  transactionPosition: number;
  blockNumber: number;
  blockHash: string;
}

let anvil: AnvilNode;
let client: RpcClient;
let scenario: ScenarioResult;
let db: TestDatabase;
let api: RunningApi;
let nodeTraces: NodeTrace[];

before(async () => {
  anvil = await startAnvil();
  scenario = await runScenario(anvil.rpcUrl);
  await splitAmongMany(scenario);
  client = createRpcClient({ url: anvil.rpcUrl });
  const head = BigInt(await client.request<string>('eth_blockNumber', []));
  db = await createTestDatabase();
  await startIndexer(await testIndexerOptions(db, client, head)).done;
  nodeTraces = [];
  for (let n = 0n; n <= head; n++) nodeTraces.push(...(await client.request<NodeTrace[]>('trace_block', [`0x${n.toString(16)}`])));
  api = await startApi(db.pool);
});

after(async () => {
  await api?.close();
  await db?.drop();
  await anvil?.stop();
});

/** One transaction of 110 internal value transfers: 60 to one payee, 50 to another, for pages of E7. */
async function splitAmongMany({ contracts, accounts }: ScenarioResult): Promise<void> {
  const transport = http(anvil.rpcUrl);
  const [first, second] = accounts.payees as [Address, Address];
  const hash = await createWalletClient({ transport }).writeContract({
    address: contracts.caller,
    abi: DemoCaller.abi,
    functionName: 'split',
    chain: null,
    account: accounts.deployer,
    args: [[...Array<Address>(60).fill(first), ...Array<Address>(50).fill(second)]],
    value: parseEther('1.1'),
  });
  const receipt = await createPublicClient({ transport }).waitForTransactionReceipt({ hash, pollingInterval: 5 });
  assert.equal(receipt.status, 'success');
}

const stageOptions = (tracingClient: RpcClient = client): TraceStageOptions => ({
  pool: db.pool,
  client: tracingClient,
  traceMethod: 'trace_block',
  logger: pino({ level: 'silent' }),
  batchSize: 3,
  concurrency: 2,
  pollIntervalMs: 20,
  backoff: { initialMs: 10, maxMs: 100 },
});

/** The client, recording how many trace_block calls each request it sends holds (a batch is one HTTP request). */
function countingBlockCalls(): { client: RpcClient; blockCallsPerRequest: number[] } {
  const blockCallsPerRequest: number[] = [];
  const count = (calls: readonly RpcCall[]) => {
    const blockCalls = calls.filter((call) => call.method === 'trace_block').length;
    if (blockCalls > 0) blockCallsPerRequest.push(blockCalls);
  };
  return {
    blockCallsPerRequest,
    client: {
      url: client.url,
      request: (method, params) => {
        count([{ method, params }]);
        return client.request(method, params);
      },
      batch: (calls) => {
        count(calls);
        return client.batch(calls);
      },
      batchSettled: (calls) => {
        count(calls);
        return client.batchSettled(calls);
      },
    },
  };
}

const untracedCount = async () =>
  Number((await db.pool.query<{ n: string }>('SELECT count(*) AS n FROM blocks WHERE consensus AND traced_at IS NULL')).rows[0]!.n);

const txHash = (label: string) => scenario.transactions.find((t) => t.label === label)!.hash;

test('the trace stage stops part way and resumes where it stopped, tracing every block once, a batch of blocks per request', async () => {
  const total = await untracedCount();
  const counting = countingBlockCalls();
  const first = startTraceStage(stageOptions(counting.client));
  await waitFor(async () => first.tracedBlocks() >= 6, 'six traced blocks');
  await first.stop();
  const left = await untracedCount();
  assert.ok(left > 0 && left < total, `${left} of ${total} blocks left`);
  const { rows: orphans } = await db.pool.query(
    'SELECT 1 FROM internal_transactions i JOIN blocks b ON b.hash = i.block_hash WHERE b.traced_at IS NULL',
  );
  assert.equal(orphans.length, 0, 'no internal transaction of a block not marked traced');

  const second = startTraceStage(stageOptions(counting.client));
  await waitFor(async () => (await untracedCount()) === 0, 'every block traced');
  await second.stop();
  assert.equal(second.tracedBlocks(), left);
  const { blockCallsPerRequest } = counting;
  assert.equal(
    blockCallsPerRequest.reduce((sum, n) => sum + n, 0),
    total,
    'each block asked once',
  );
  assert.equal(Math.max(...blockCallsPerRequest), 3, 'the blocks of a batch asked in one request');
  const { rows } = await db.pool.query<{ n: string }>('SELECT count(*) AS n FROM internal_transactions');
  assert.equal(Number(rows[0]!.n), nodeTraces.filter((t) => t.type !== 'reward').length);
});

test('E6 serves every transaction trace as the node writes it', async () => {
  for (const { hash, label } of scenario.transactions) {
    const { status, body } = await api.get(`/api/v2/transactions/${hash}/raw-trace`);
    assert.equal(status, 200);
    // The node's frames less the members the spec does not list (transactionHash is Blockscout's own).
    const expected = nodeTraces
      .filter((t) => t.transactionHash === hash)
      .map(({ blockHash, blockNumber, transactionPosition, ...frame }) => frame);
    assert.deepEqual(body, expected, label);
  }
  const types = new Set(nodeTraces.map((t) => t.type));
  assert.ok(types.has('create') && types.has('suicide'), `trace types: ${[...types].join(', ')}`);
});

test('E6 answers [] for a pool transaction and 404 for an unknown one', async () => {
  const pending = `0x${'ab'.repeat(32)}`;
  await db.pool.query(
    `INSERT INTO pending_transactions (hash, inserted_at, from_address, nonce, value, gas_limit, input)
     VALUES ($1, now(), $2, 0, 0, 21000, '')`,
    [Buffer.from(pending.slice(2), 'hex'), Buffer.alloc(20)],
  );
  assert.deepEqual((await api.get(`/api/v2/transactions/${pending}/raw-trace`)).body, []);
  const unknown = await api.get(`/api/v2/transactions/0x${'cd'.repeat(32)}/raw-trace`);
  assert.deepEqual([unknown.status, unknown.body], [404, { message: 'Not found' }]);
  assert.equal((await api.get('/api/v2/transactions/0x12/raw-trace')).status, 422);
});

/** The E7 items the node's traces imply for an address, newest first. */
function expectedInternalTransactions(address: string, filter: 'to' | 'from' | null) {
  const indexed = new Map<string, number>();
  const frames = nodeTraces.map((t) => {
    const key = t.transactionHash;
    const index = indexed.get(key) ?? 0;
    indexed.set(key, index + 1);
    return { t, index };
  });
  return frames
    .filter(({ t, index }) => t.type !== 'call' || index > 0)
    .map(({ t, index }) => {
      const created = t.type === 'create' ? (t.result?.address ?? null) : null;
      const from = t.type === 'suicide' ? t.action.address! : t.action.from!;
      const to = t.type === 'suicide' ? t.action.refundAddress! : t.type === 'create' ? created : t.action.to!;
      return {
        block_number: t.blockNumber,
        transaction_index: t.transactionPosition,
        index,
        transaction_hash: t.transactionHash,
        type: t.type === 'call' ? t.action.callType : t.type === 'suicide' ? 'selfdestruct' : t.action.creationMethod,
        from,
        to,
        created_contract: created,
        value: BigInt(t.action.value ?? t.action.balance!).toString(),
        gas_limit: BigInt(t.action.gas ?? '0x0').toString(),
        success: t.error === undefined,
        error: t.error ?? null,
      };
    })
    .filter((item) => (filter !== 'to' && item.from === address) || (filter !== 'from' && item.to === address))
    .reverse();
}

const served = (item: any) => ({
  block_number: item.block_number,
  transaction_index: item.transaction_index,
  index: item.index,
  transaction_hash: item.transaction_hash,
  type: item.type,
  from: item.from.hash.toLowerCase(),
  to: item.to === null ? null : item.to.hash.toLowerCase(),
  created_contract: item.created_contract === null ? null : item.created_contract.hash.toLowerCase(),
  value: item.value,
  gas_limit: item.gas_limit,
  success: item.success,
  error: item.error,
});

test('E7 lists the internal transactions of every address with either filter, across full pages', async () => {
  const addresses = new Set(
    nodeTraces.flatMap((t) => [t.action.from, t.action.to, t.action.address, t.action.refundAddress, t.result?.address]),
  );
  let paged = 0;
  for (const address of [...addresses].filter((a): a is string => typeof a === 'string')) {
    for (const filter of [null, 'to', 'from'] as const) {
      const list = await collectList(api, `/api/v2/addresses/${address}/internal-transactions`, filter === null ? {} : { filter });
      assert.deepEqual(list.items.map(served), expectedInternalTransactions(address, filter), `${address} ${filter}`);
      for (const size of list.pageSizes.slice(0, -1)) assert.equal(size, 50);
      if (list.pageSizes.length > 1) paged++;
      for (const next of list.nextPageParams)
        assert.deepEqual(Object.keys(next), ['block_number', 'index', 'items_count', 'transaction_index']);
    }
  }
  assert.ok(paged > 0, 'some address has more than one page');
});

test('E7 validates its parameters and answers an unknown address with an empty list', async () => {
  const caller = scenario.contracts.caller;
  const bad = await api.get(`/api/v2/addresses/${caller}/internal-transactions?filter=sideways&block_number=1`);
  assert.equal(bad.status, 422);
  assert.deepEqual(bad.body.errors.map((e: any) => e.source.pointer).sort(), ['/filter']);
  const partial = await api.get(`/api/v2/addresses/${caller}/internal-transactions?block_number=1`);
  assert.deepEqual(partial.body.errors.map((e: any) => e.source.pointer).sort(), ['/index', '/transaction_index']);
  const unknown = await api.get(`/api/v2/addresses/0x${'77'.repeat(20)}/internal-transactions`);
  assert.deepEqual([unknown.status, unknown.body], [200, { items: [], next_page_params: null }]);
});

test('traces set the transaction error, has_error_in_internal_transactions and the created contracts', async () => {
  const { items } = await collectList(api, '/api/v2/transactions');
  const byHash = new Map(items.map((t: any) => [t.hash, t]));
  const reverted = byHash.get(scenario.revertedTxHash);
  assert.equal(
    reverted.result,
    nodeTraces.find((t) => t.transactionHash === scenario.revertedTxHash && t.traceAddress.length === 0)!.error,
  );
  assert.notEqual(reverted.revert_reason, null);
  assert.equal(byHash.get(txHash('caller probe with caught inner revert')).has_error_in_internal_transactions, true);
  assert.equal(byHash.get(txHash('caller split ether among payees')).has_error_in_internal_transactions, false);
  const created = await collectList(api, `/api/v2/addresses/${scenario.contracts.create2Child}/internal-transactions`, { filter: 'to' });
  const creation = created.items.find((i: any) => i.type === 'create2');
  assert.equal(creation.created_contract.is_contract, true);
});
