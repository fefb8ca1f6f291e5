import assert from 'node:assert/strict';
import { type AddressInfo, type Socket, connect, createServer } from 'node:net';
import { after, before, test } from 'node:test';
import { createRpcClient, type RpcClient } from '../../src/chain/rpc.js';
import { startAnvil, type AnvilNode } from '../../src/demo/anvil.js';
import { startIndexer } from '../../src/indexer/blocks/indexer.js';
import { startTraceStage } from '../../src/indexer/stages/trace-stage.js';
import { createWalletClient, encodeFunctionData, http, parseEventLogs, type TransactionReceipt } from 'viem';
import { pino } from 'pino';
import { DemoERC20 } from '../../src/demo/artifacts.js';
import type { Hex, PoolTransaction } from '../../src/model.js';
import { saveCoinBalances } from '../../src/store/coin-balances.js';
import { savePrices } from '../../src/store/market.js';
import { replacePendingTransactions } from '../../src/store/pending-transactions.js';
import { listenerName } from '../../src/store/notifications.js';
import { bytea, createTestDatabase, type TestDatabase, testServerUrl } from '../support/database.js';
import { testIndexerOptions } from '../support/indexer-options.js';
import { assertConformsToComponent } from '../support/openapi-conformance.js';
import { PhoenixClient } from '../support/phoenix-client.js';
import { waitFor } from '../support/wait.js';
import { getOk } from '../support/http-client.js';
import { type RunningApi, startApi } from './http.js';

let anvil: AnvilNode;
let rpc: RpcClient;
let accounts: Hex[];
let db: TestDatabase;
let api: RunningApi;
let indexer: ReturnType<typeof startIndexer>;

before(async () => {
  anvil = await startAnvil();
  rpc = createRpcClient({ url: anvil.rpcUrl });
  accounts = await rpc.request<Hex[]>('eth_accounts', []);
  db = await createTestDatabase();
  indexer = startIndexer(await testIndexerOptions(db, rpc, null));
  api = await startApi(db.pool, { changeConnection: { connectionString: db.url } });
});

after(async () => {
  await api?.close();
  await indexer?.stop();
  await db?.drop();
  await anvil?.stop();
});

const indexedAt = async (number: number): Promise<boolean> =>
  ((await db.pool.query('SELECT 1 FROM blocks WHERE consensus AND number = $1', [number])).rowCount ?? 0) === 1;

async function mineTransfer(value: number): Promise<{ hash: Hex; blockNumber: number }> {
  const hash = await rpc.request<Hex>('eth_sendTransaction', [{ from: accounts[0], to: accounts[1], value: `0x${value.toString(16)}` }]);
  let receipt: { blockNumber: Hex } | null = null;
  await waitFor(async () => (receipt = await rpc.request('eth_getTransactionReceipt', [hash])) !== null, `${hash} is mined`, {
    timeoutMs: 15_000,
  });
  return { hash, blockNumber: Number(receipt!.blockNumber) };
}

test('heartbeats and joins are answered as Phoenix answers them; a plain GET of the socket is a 404', async () => {
  const plain = await api.get('/socket/v2/websocket?vsn=2.0.0');
  assert.equal(plain.status, 404);
  assert.deepEqual(plain.body, { message: 'Not found' });
  const client = await PhoenixClient.connect(api.base);
  try {
    assert.deepEqual(await client.call('phoenix', 'heartbeat'), ['ok', {}]);
    assert.deepEqual(await client.join('blocks:new_block'), ['ok', {}]);
    assert.deepEqual(await client.join('transactions:new_transaction'), ['ok', {}]);
    assert.deepEqual(await client.join(`addresses:${accounts[1]}`), ['ok', {}]);
    assert.deepEqual(await client.join('nothing:here'), ['error', { reason: 'unmatched topic' }]);
    assert.deepEqual(await client.join('addresses:0x1'), ['error', { reason: 'invalid address hash' }]);
    assert.deepEqual(await client.call('blocks:new_block', 'phx_leave'), ['ok', {}]);
    assert.deepEqual(await client.call('blocks:new_block', 'anything'), ['error', { reason: 'unmatched topic' }]);
  } finally {
    client.close();
  }
});

test('a block mined on the node reaches the block, transaction and address topics as Blockscout sends them', async () => {
  const client = await PhoenixClient.connect(api.base);
  try {
    await client.join('blocks:new_block');
    await client.join('transactions:new_transaction');
    // As the frontend spells it, and checksummed: each gets the pushes under its own spelling.
    await client.join(`addresses:${accounts[1]!.toLowerCase()}`);
    // anvil's blocks name the zero address as their miner.
    const [minerTopic, otherMinerTopic] = [`blocks:0x${'0'.repeat(40)}`, `blocks:${accounts[5]}`];
    await client.join(minerTopic);
    await client.join(otherMinerTopic);
    await client.call('phoenix', 'heartbeat');

    const mined = await mineTransfer(7);
    await waitFor(() => indexedAt(mined.blockNumber), `block ${mined.blockNumber} is indexed`, { timeoutMs: 30_000 });
    const newBlock = () => client.pushes('blocks:new_block', 'new_block').find((p) => p.block.height === mined.blockNumber);
    await waitFor(() => newBlock() !== undefined, `new_block ${mined.blockNumber} after its indexing`, { timeoutMs: 30_000 });

    const payload = newBlock();
    assert.deepEqual(Object.keys(payload).sort(), ['average_block_time', 'block']);
    assert.match(payload.average_block_time, /^\d+$/);
    assertConformsToComponent('Block', payload.block, 'the new_block push');
    const listed = await getOk(api, '/api/v2/blocks');
    assert.deepEqual(
      payload.block,
      listed.items.find((b: any) => b.height === mined.blockNumber),
    );

    await waitFor(() => client.pushes('transactions:new_transaction', 'transaction').length > 0, 'the transaction count push');
    assert.ok(client.pushes('transactions:new_transaction', 'transaction').some((p) => p.transaction === 1));

    const addressTopic = `addresses:${accounts[1]!.toLowerCase()}`;
    await waitFor(() => client.pushes(addressTopic, 'transaction').length > 0, 'the address transaction push');
    const [{ transactions }] = client.pushes(addressTopic, 'transaction');
    assert.deepEqual(
      transactions.map((t: any) => t.hash),
      [mined.hash],
    );
    assertConformsToComponent('Transaction', transactions[0], 'the address transaction push');
    assert.deepEqual(transactions[0], await getOk(api, `/api/v2/addresses/${accounts[1]}/transactions`).then((b) => b.items[0]));

    // A miner's topic gets its blocks; that of an address that mined nothing stays quiet.
    assert.equal(payload.block.miner.hash, `0x${'0'.repeat(40)}`);
    assert.ok(client.pushes(minerTopic, 'new_block').some((p) => p.block.height === mined.blockNumber));
    assert.deepEqual(client.pushes(otherMinerTopic, 'new_block'), []);
  } finally {
    client.close();
  }
});

test('a left topic gets nothing more, and every client on a topic gets each push', async () => {
  const [staying, leaving] = [await PhoenixClient.connect(api.base), await PhoenixClient.connect(api.base)];
  try {
    for (const client of [staying, leaving]) await client.join('blocks:new_block');
    await leaving.call('blocks:new_block', 'phx_leave');
    const mined = await mineTransfer(8);
    await waitFor(
      () => staying.pushes('blocks:new_block', 'new_block').some((p) => p.block.height === mined.blockNumber),
      `new_block ${mined.blockNumber}`,
    );
    assert.deepEqual(leaving.pushes('blocks:new_block', 'new_block'), []);
  } finally {
    staying.close();
    leaving.close();
  }
});

test('new pending transactions and balance reads are pushed from their writes', async () => {
  const client = await PhoenixClient.connect(api.base);
  try {
    const watched = accounts[2]!;
    await client.join('transactions:new_pending_transaction');
    await client.join(`addresses:${watched}`);
    const pending: PoolTransaction = {
      hash: `0x${'ab'.repeat(32)}`,
      from: watched,
      to: accounts[3]!,
      nonce: 0n,
      type: 2,
      value: 1n,
      gasLimit: 21_000n,
      gasPrice: null,
      maxFeePerGas: 2n,
      maxPriorityFeePerGas: 1n,
      input: '0x',
    };
    await replacePendingTransactions(db.pool, [pending]);
    await waitFor(() => client.pushes('transactions:new_pending_transaction', 'pending_transaction').length > 0, 'the pending push');
    assert.deepEqual(client.pushes('transactions:new_pending_transaction', 'pending_transaction'), [{ pending_transaction: 1 }]);

    const head = await db.pool.query<{ number: string; hash: Buffer }>(
      'SELECT number, hash FROM blocks WHERE consensus ORDER BY number DESC LIMIT 1',
    );
    const block = { number: BigInt(head.rows[0]!.number), hash: `0x${head.rows[0]!.hash.toString('hex')}` as Hex };
    assert.equal(await saveCoinBalances(db.pool, block, [{ address: watched, mark: 0n, value: 5n }]), true);
    const topic = `addresses:${watched}`;
    await waitFor(() => client.pushes(topic, 'coin_balance').length > 0, 'the coin balance push');
    const blockNumber = Number(block.number);
    assert.deepEqual(client.pushes(topic, 'balance'), [{ balance: '5', block_number: blockNumber, exchange_rate: null }]);
    assert.deepEqual(client.pushes(topic, 'current_coin_balance'), [{ coin_balance: '5', block_number: blockNumber, exchange_rate: null }]);
    const [{ coin_balance }] = client.pushes(topic, 'coin_balance');
    assertConformsToComponent('CoinBalance', coin_balance, 'the coin_balance push');
    assert.deepEqual(coin_balance, (await getOk(api, `/api/v2/addresses/${watched}/coin-balance-history`)).items[0]);

    // With a coin price stored, the balance pushes carry it as the address page does.
    await savePrices(
      db.pool,
      {
        market: {
          fiatValue: '2500.5',
          priceChangePercentage24h: null,
          marketCap: null,
          volume24h: null,
          imageUrl: null,
          circulatingSupply: null,
        },
        history: [],
      },
      null,
    );
    assert.equal(await saveCoinBalances(db.pool, block, [{ address: watched, mark: 1n, value: 6n }]), true);
    await waitFor(() => client.pushes(topic, 'coin_balance').length > 1, 'the second coin balance push');
    assert.deepEqual(client.pushes(topic, 'balance')[1], { balance: '6', block_number: blockNumber, exchange_rate: '2500.5' });
    assert.deepEqual(client.pushes(topic, 'current_coin_balance')[1], {
      coin_balance: '6',
      block_number: blockNumber,
      exchange_rate: '2500.5',
    });
    assert.equal((await getOk(api, `/api/v2/addresses/${watched}`)).exchange_rate, '2500.5');
    assert.ok((await db.pool.query('SELECT 1 FROM pending_transactions WHERE hash = $1', [bytea(pending.hash)])).rowCount === 1);
  } finally {
    client.close();
  }
});

test('a token topic gets the count of its new transfers, a transaction topic its collation, the indexing topics the index status', async () => {
  const wallet = createWalletClient({ transport: http(anvil.rpcUrl) });
  const deployed = await wallet.deployContract({ abi: DemoERC20.abi, bytecode: DemoERC20.bytecode, account: accounts[0]!, chain: null });
  await waitFor(async () => (await rpc.request('eth_getTransactionReceipt', [deployed])) !== null, 'the token is deployed');
  const deployment = await rpc.request<TransactionReceipt>('eth_getTransactionReceipt', [deployed]);
  const token = deployment.contractAddress!;
  await waitFor(() => indexedAt(Number(BigInt(deployment.blockNumber))), 'the deployment is indexed', { timeoutMs: 30_000 });
  const traces = startTraceStage({
    pool: db.pool,
    client: rpc,
    traceMethod: 'trace_block',
    logger: pino({ level: 'silent' }),
    batchSize: 5,
    concurrency: 1,
    pollIntervalMs: 50,
    backoff: { initialMs: 10, maxMs: 100 },
  });
  const untraced = async () =>
    Number((await db.pool.query('SELECT count(*) AS n FROM blocks WHERE consensus AND traced_at IS NULL')).rows[0].n);
  await waitFor(async () => (await untraced()) === 0, 'every block so far is traced', { timeoutMs: 60_000 });
  await traces.stop();

  const client = await PhoenixClient.connect(api.base);
  try {
    // Two mints and a plain transfer in one block: the pending mint's hash is known before it is mined.
    await rpc.request('evm_setAutomine', [false]);
    const mint = (amount: bigint) => ({
      from: accounts[0],
      to: token,
      data: encodeFunctionData({ abi: DemoERC20.abi, functionName: 'mint', args: [accounts[1]!, amount] }),
    });
    const first = await rpc.request<Hex>('eth_sendTransaction', [mint(5n)]);
    await rpc.request<Hex>('eth_sendTransaction', [mint(6n)]);
    const other = await rpc.request<Hex>('eth_sendTransaction', [{ from: accounts[2], to: accounts[3], value: '0x1' }]);
    const [tokenTopic, firstTopic, quietTopic] = [`tokens:${token}`, `transactions:${first}`, `transactions:0x${'cd'.repeat(32)}`];
    for (const topic of [tokenTopic, firstTopic, quietTopic, 'blocks:indexing', 'blocks:indexing_internal_transactions']) {
      assert.deepEqual(await client.join(topic), ['ok', {}], topic);
    }
    await rpc.request('evm_mine', []);
    await rpc.request('evm_setAutomine', [true]);
    const receipt = await rpc.request<TransactionReceipt>('eth_getTransactionReceipt', [first]);
    const mined = Number(BigInt(receipt.blockNumber));
    assert.equal(Number(BigInt((await rpc.request<TransactionReceipt>('eth_getTransactionReceipt', [other])).blockNumber)), mined);
    const block = await rpc.request<{ transactions: Hex[] }>('eth_getBlockByNumber', [receipt.blockNumber, false]);
    const receipts = await Promise.all(block.transactions.map((h) => rpc.request<TransactionReceipt>('eth_getTransactionReceipt', [h])));
    const transfers = parseEventLogs({ abi: DemoERC20.abi, eventName: 'Transfer', logs: receipts.flatMap((r) => r.logs) });
    assert.equal(transfers.length, 2);

    await waitFor(() => client.pushes(tokenTopic, 'token_transfer').length > 0, 'the token transfer push', { timeoutMs: 30_000 });
    assert.deepEqual(client.pushes(tokenTopic, 'token_transfer'), [{ token_transfer: transfers.length }]);
    await waitFor(() => client.pushes(firstTopic, 'collated').length > 0, 'the collated push');
    assert.deepEqual(client.pushes(firstTopic, 'collated'), [{}]);
    assert.deepEqual(
      client.frames.filter((f) => f[2] === quietTopic && f[3] !== 'phx_reply'),
      [],
      'a transaction not mined gets nothing',
    );

    // The block is indexed, not traced: every block indexed, not all traced; REST says the same.
    await waitFor(() => client.pushes('blocks:indexing_internal_transactions', 'index_status').length > 0, 'the index status push');
    const status = await getOk(api, '/api/v2/main-page/indexing-status');
    assert.deepEqual(client.pushes('blocks:indexing', 'index_status').at(-1), { ratio: '1', finished: true });
    const [indexed, traced] = (
      await db.pool.query<{ all: string; traced: string }>('SELECT count(*) AS all, count(traced_at) AS traced FROM blocks WHERE consensus')
    ).rows.map((r) => [Number(r.all), Number(r.traced)])[0]!;
    assert.equal(traced, indexed! - 1);
    const ratio = Math.floor((traced! * 100) / indexed!) / 100;
    assert.deepEqual(client.pushes('blocks:indexing_internal_transactions', 'index_status').at(-1), {
      ratio: String(ratio),
      finished: false,
    });
    assert.equal(status.indexed_internal_transactions_ratio, ratio);
    assert.equal(status.finished_indexing, false);

    // Once the trace stage has traced it, the indexing is finished: the footer's pill goes.
    const tracing = startTraceStage({
      pool: db.pool,
      client: rpc,
      traceMethod: 'trace_block',
      logger: pino({ level: 'silent' }),
      batchSize: 5,
      concurrency: 1,
      pollIntervalMs: 50,
      backoff: { initialMs: 10, maxMs: 100 },
    });
    try {
      await waitFor(
        () => client.pushes('blocks:indexing_internal_transactions', 'index_status').at(-1)?.finished === true,
        'the finished index status push',
        { timeoutMs: 30_000 },
      );
    } finally {
      await tracing.stop();
    }
    assert.deepEqual(client.pushes('blocks:indexing_internal_transactions', 'index_status').at(-1), { ratio: '1', finished: true });
    const after = await getOk(api, '/api/v2/main-page/indexing-status');
    assert.equal(after.finished_indexing, true);
    assert.equal(after.indexed_internal_transactions_ratio, 1);
    assert.equal(mined, Number((await db.pool.query('SELECT max(number) AS n FROM blocks WHERE consensus')).rows[0].n));
  } finally {
    client.close();
  }
});

test('a lost listener connection is made again, and pushes go on', async () => {
  const client = await PhoenixClient.connect(api.base);
  try {
    await client.join('blocks:new_block');
    const { rows } = await db.pool.query<{ pid: number; terminated: boolean }>(
      `SELECT pid, pg_terminate_backend(pid) AS terminated FROM pg_stat_activity
       WHERE datname = current_database() AND application_name = '${listenerName}'`,
    );
    assert.deepEqual(
      rows.map((r) => r.terminated),
      [true],
      'one listening connection for the API process',
    );
    await waitFor(
      async () =>
        // Listening, not only connected: a change written in between would be missed. Another
        // connection than the terminated one, which can stay in pg_stat_activity for a while as it ends.
        ((
          await db.pool.query(
            `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND application_name = '${listenerName}'
             AND pid <> $1 AND state = 'idle' AND (query LIKE 'LISTEN %' OR query LIKE 'SELECT pg_current_wal_lsn()%')`,
            [rows[0]!.pid],
          )
        ).rowCount ?? 0) === 1,
      'the listener is back',
      { timeoutMs: 30_000 },
    );
    const mined = await mineTransfer(9);
    await waitFor(
      () => client.pushes('blocks:new_block', 'new_block').some((p) => p.block.height === mined.blockNumber),
      `new_block ${mined.blockNumber} after the reconnection`,
      { timeoutMs: 30_000 },
    );
  } finally {
    client.close();
  }
});

test('a listener whose first connection cannot be made in time is made again: the API starts, and pushes begin once it listens', async () => {
  // Between the API's listener and PostgreSQL: the first connection is accepted and left silent, later ones are passed on.
  const target = new URL(testServerUrl);
  let connections = 0;
  const held: Socket[] = [];
  const proxy = createServer((socket) => {
    if (connections++ === 0) return void held.push(socket);
    const upstream = connect(Number(target.port || 5432), target.hostname);
    socket.pipe(upstream).pipe(socket);
    socket.on('error', () => upstream.destroy());
    upstream.on('error', () => socket.destroy());
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const url = new URL(db.url);
  url.host = `127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  const late = await startApi(db.pool, { changeConnection: { connectionString: url.toString(), connectionTimeoutMillis: 500 } });
  const client = await PhoenixClient.connect(late.base);
  try {
    await client.join('blocks:new_block');
    assert.equal((await late.get('/api/v2/blocks')).status, 200, 'the API serves meanwhile');
    await waitFor(() => connections >= 2, 'the listener connects again', { timeoutMs: 30_000 });
    await waitFor(
      async () =>
        ((
          await db.pool.query(
            `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND application_name = '${listenerName}'
             AND (query LIKE 'LISTEN %' OR query LIKE 'SELECT pg_current_wal_lsn()%')`,
          )
        ).rowCount ?? 0) >= 2,
      'the late listener listens beside the first API',
      { timeoutMs: 30_000 },
    );
    const mined = await mineTransfer(11);
    await waitFor(
      () => client.pushes('blocks:new_block', 'new_block').some((p) => p.block.height === mined.blockNumber),
      `new_block ${mined.blockNumber} through the late listener`,
      { timeoutMs: 30_000 },
    );
  } finally {
    client.close();
    await late.close();
    for (const socket of held) socket.destroy();
    proxy.close();
  }
});
