import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, test } from 'node:test';
import { pino } from 'pino';
import { encodeFunctionData } from 'viem';
import { createRpcClient, type RpcClient } from '../../src/chain/rpc.js';
import { fetchTxpool } from '../../src/chain/txpool.js';
import { startAnvil, type AnvilNode } from '../../src/demo/anvil.js';
import { DemoERC20 } from '../../src/demo/artifacts.js';
import { startIndexer, type Indexer } from '../../src/indexer/blocks/indexer.js';
import { startPendingStage, type PendingStageOptions } from '../../src/indexer/stages/pending-stage.js';
import type { Hex, PoolTransaction } from '../../src/model.js';
import { removeMinedFromPending, replacePendingTransactions } from '../../src/store/pending-transactions.js';
import { isoTimestamp } from '../../src/store/read/sql.js';
import { type RunningApi, collectList, startApi } from '../api/http.js';
import { bytea, createTestDatabase, type TestDatabase } from '../support/database.js';
import { testIndexerOptions } from '../support/indexer-options.js';
import { apiClient } from '../support/http-client.js';
import { startReplayNode } from '../support/replay-node.js';
import { startSextant } from '../support/sextant-process.js';
import { waitFor } from '../support/wait.js';

/** A transaction as eth_getTransactionByHash reports it. */
interface NodeTransaction {
  hash: Hex;
  from: Hex;
  to: Hex | null;
  nonce: Hex;
  type: Hex;
  value: Hex;
  gas: Hex;
  gasPrice: Hex;
  maxFeePerGas?: Hex;
  maxPriorityFeePerGas?: Hex;
  input: Hex;
}

interface NodeReceipt {
  blockNumber: Hex;
  transactionIndex: Hex;
  status: Hex;
  contractAddress: Hex | null;
}

let anvil: AnvilNode;
let client: RpcClient;
let db: TestDatabase;
let indexer: Indexer;
let api: RunningApi;
let accounts: Hex[];
let token: Hex;

const gwei = (n: number): Hex => `0x${(BigInt(n) * 1_000_000_000n).toString(16)}`;
const send = (transaction: Record<string, unknown>) => client.request<Hex>('eth_sendTransaction', [transaction]);
const receipt = (hash: Hex) => client.request<NodeReceipt | null>('eth_getTransactionReceipt', [hash]);

const stageOptions = (overrides: Partial<PendingStageOptions> = {}): PendingStageOptions => ({
  pool: db.pool,
  client,
  logger: pino({ level: 'silent' }),
  pollIntervalMs: 50,
  backoff: { initialMs: 10, maxMs: 100 },
  ...overrides,
});

const listHashes = async (filters: Record<string, string>): Promise<Hex[]> =>
  (await collectList(api, '/api/v2/transactions', filters)).items.map((item: { hash: Hex }) => item.hash);

const sameSet = (actual: readonly Hex[], expected: readonly Hex[]) =>
  actual.length === expected.length && [...actual].sort().join() === [...expected].sort().join();

/** When each pending transaction was first seen, as the database has it. */
async function insertedAt(): Promise<Map<Hex, string>> {
  const { rows } = await db.pool.query<{ hash: Hex; inserted_at: string }>(
    `SELECT '0x' || encode(hash, 'hex') AS hash, ${isoTimestamp('inserted_at')} AS inserted_at FROM pending_transactions`,
  );
  return new Map(rows.map((row) => [row.hash, row.inserted_at]));
}

/** A pool transaction made up here, for what the node's pool cannot be made to show. */
const unsentTransaction = (hash: Hex): PoolTransaction => ({
  hash,
  from: accounts[1]!,
  to: accounts[2]!,
  nonce: 0n,
  type: 0,
  value: 1n,
  gasLimit: 21_000n,
  gasPrice: 1n,
  maxFeePerGas: null,
  maxPriorityFeePerGas: null,
  input: '0x',
});

before(async () => {
  anvil = await startAnvil();
  client = createRpcClient({ url: anvil.rpcUrl });
  accounts = await client.request<Hex[]>('eth_accounts', []);
  const deployment = await send({ from: accounts[0], data: DemoERC20.bytecode });
  let deployed: NodeReceipt | null = null;
  await waitFor(async () => {
    deployed = await receipt(deployment);
    return deployed !== null;
  }, 'the token is deployed');
  token = deployed!.contractAddress!;
  await client.request('evm_setAutomine', [false]);
  db = await createTestDatabase();
  indexer = startIndexer(await testIndexerOptions(db, client, null));
  await indexer.caughtUp;
  api = await startApi(db.pool);
});

after(async () => {
  await indexer?.stop();
  await api?.close();
  await db?.drop();
  await anvil?.stop();
});

test('E2 filter=pending lists the pool with automine off, and mined transactions move to the validated list', async () => {
  const stage = startPendingStage(stageOptions());
  try {
    const [deployer, legacySender, accessListSender, feeMarketSender, replacedSender, droppedSender, busySender, payee] = accounts as [
      Hex,
      Hex,
      Hex,
      Hex,
      Hex,
      Hex,
      Hex,
      Hex,
    ];
    const legacy = await send({ from: legacySender, to: payee, value: '0x1', gas: '0x5208', gasPrice: gwei(2) });
    const accessList = await send({
      from: accessListSender,
      to: payee,
      value: '0x2',
      gas: '0x7530',
      gasPrice: gwei(2),
      accessList: [{ address: token, storageKeys: [] }],
    });
    const feeMarket = await send({
      from: feeMarketSender,
      to: payee,
      value: '0x3',
      gas: '0x5208',
      maxFeePerGas: gwei(3),
      maxPriorityFeePerGas: gwei(1),
    });
    const mint = await send({
      from: deployer,
      to: token,
      gas: '0x30000',
      maxFeePerGas: gwei(3),
      maxPriorityFeePerGas: gwei(1),
      data: encodeFunctionData({ abi: DemoERC20.abi, functionName: 'mint', args: [payee, 1000n] }),
    });
    const creation = await send({ from: accounts[8], data: DemoERC20.bytecode, gas: '0x200000', gasPrice: gwei(2) });
    const replaced = await send({
      from: replacedSender,
      to: payee,
      value: '0x4',
      nonce: '0x0',
      gas: '0x5208',
      maxFeePerGas: gwei(3),
      maxPriorityFeePerGas: gwei(1),
    });
    const dropped = await send({ from: droppedSender, to: payee, value: '0x5', gas: '0x5208', gasPrice: gwei(2) });
    const firstSent = [legacy, accessList, feeMarket, mint, creation, replaced, dropped];
    await waitFor(async () => sameSet(await listHashes({ filter: 'pending' }), firstSent), 'the first transactions are pending');
    const firstSeen = await insertedAt();

    // The same nonce at a higher fee takes the place of the first one; anvil_dropTransaction drops one.
    const replacement = await send({
      from: replacedSender,
      to: payee,
      value: '0x4',
      nonce: '0x0',
      gas: '0x5208',
      maxFeePerGas: gwei(6),
      maxPriorityFeePerGas: gwei(2),
    });
    await client.request('anvil_dropTransaction', [dropped]);
    const fillers: Hex[] = [];
    for (let i = 0; i < 50; i++)
      fillers.push(await send({ from: busySender, to: payee, value: `0x${(i + 1).toString(16)}`, gas: '0x5208' }));
    const stillPending = [legacy, accessList, feeMarket, mint, creation];
    const expected = [...stillPending, replacement, ...fillers];
    await waitFor(async () => sameSet(await listHashes({ filter: 'pending' }), expected), 'the pool after a replacement and a drop');

    const list = await collectList(api, '/api/v2/transactions', { filter: 'pending' });
    const seen = await insertedAt();
    for (const hash of stillPending) assert.equal(seen.get(hash), firstSeen.get(hash), `${hash} keeps the time it was first seen`);
    for (const hash of [replacement, ...fillers]) {
      assert.ok(
        seen.get(hash)! > firstSeen.get(legacy)!,
        `${hash} was seen later: at ${seen.get(hash)}, the first at ${firstSeen.get(legacy)}`,
      );
    }
    const ordered = [...expected].sort((a, b) => {
      const [at, bt] = [seen.get(a)!, seen.get(b)!];
      return at === bt ? (a < b ? 1 : -1) : at < bt ? 1 : -1;
    });
    assert.deepEqual(
      list.items.map((item: { hash: Hex }) => item.hash),
      ordered,
      'newest first: (inserted_at, hash) descending',
    );
    assert.deepEqual(list.pageSizes, [50, 6]);
    const lastOfFirstPage = ordered[49]!;
    assert.deepEqual(list.nextPageParams, [{ hash: lastOfFirstPage, inserted_at: seen.get(lastOfFirstPage), items_count: 50 }]);

    for (const item of list.items) {
      const node = await client.request<NodeTransaction>('eth_getTransactionByHash', [item.hash]);
      const poolPrice = node.maxFeePerGas === undefined ? BigInt(node.gasPrice) : BigInt(node.maxFeePerGas);
      const optional = (value: Hex | undefined) => (value === undefined ? null : BigInt(value).toString());
      assert.equal(item.from.hash.toLowerCase(), node.from);
      assert.equal(item.to?.hash.toLowerCase() ?? null, node.to);
      assert.equal(item.nonce, Number(node.nonce));
      assert.equal(item.type, Number(node.type));
      assert.equal(item.value, BigInt(node.value).toString());
      assert.equal(item.gas_limit, Number(BigInt(node.gas)));
      // anvil's pool prices an EIP-1559 transaction at its max fee per gas.
      assert.equal(item.gas_price, poolPrice.toString());
      assert.equal(item.max_fee_per_gas, optional(node.maxFeePerGas));
      assert.equal(item.max_priority_fee_per_gas, optional(node.maxPriorityFeePerGas));
      assert.equal(item.raw_input, node.input);
      assert.deepEqual(item.fee, { type: 'maximum', value: (poolPrice * BigInt(node.gas)).toString() });
      assert.deepEqual(
        [item.block_number, item.position, item.timestamp, item.status, item.gas_used, item.base_fee_per_gas],
        [null, null, null, null, null, null],
      );
      assert.equal(item.result, 'pending');
      assert.equal(item.confirmations, 0);
    }
    const byHash = new Map<Hex, any>(list.items.map((item: { hash: Hex }) => [item.hash, item]));
    assert.deepEqual(
      [legacy, accessList, feeMarket].map((hash) => byHash.get(hash).type),
      [0, 1, 2],
    );
    const mintItem = byHash.get(mint);
    assert.equal(mintItem.method, 'mint');
    assert.deepEqual(mintItem.transaction_types, ['contract_call']);
    assert.equal(mintItem.to.is_contract, true);
    assert.deepEqual(byHash.get(creation).transaction_types, ['contract_creation']);
    assert.deepEqual(await listHashes({ filter: 'pending', type: 'contract_call' }), [mint]);
    assert.deepEqual(await listHashes({ filter: 'pending', method: 'mint' }), [mint]);

    // With the stage stopped, only the block write can take the mined transactions off the list.
    await stage.stop();
    await client.request('evm_mine', []);
    await waitFor(async () => {
      const validatedHashes = await listHashes({});
      return expected.every((hash) => validatedHashes.includes(hash));
    }, 'the mined block is indexed');
    assert.deepEqual(await listHashes({ filter: 'pending' }), []);
    const validated = (await collectList(api, '/api/v2/transactions', {})).items;
    for (const hash of expected) {
      const item = validated.find((candidate: { hash: Hex }) => candidate.hash === hash);
      const mined = (await receipt(hash))!;
      assert.equal(item.block_number, Number(mined.blockNumber), hash);
      assert.equal(item.position, Number(mined.transactionIndex), hash);
      assert.equal(item.status, 'ok', hash);
      assert.equal(item.fee.type, 'actual', hash);
    }
    for (const hash of [replaced, dropped]) {
      assert.equal(await receipt(hash), null, `${hash} was never mined`);
      assert.deepEqual(
        validated.filter((item: { hash: Hex }) => item.hash === hash),
        [],
        `${hash} is not listed as validated`,
      );
    }
  } finally {
    await stage.stop();
  }
});

test('a snapshot of the pool taken before its transactions were mined does not list them again', async () => {
  const [sender, payee] = [accounts[1] as Hex, accounts[2] as Hex];
  const mined = await send({ from: sender, to: payee, value: '0x1', gas: '0x5208', gasPrice: gwei(2) });
  const beforeMining = await fetchTxpool(client);
  assert.deepEqual(
    beforeMining?.transactions.map((t) => t.hash),
    [mined],
  );
  await client.request('evm_mine', []);
  await waitFor(async () => (await listHashes({})).includes(mined), 'the block is indexed');
  const waiting = await send({ from: sender, to: payee, value: '0x2', gas: '0x5208', gasPrice: gwei(2) });
  const afterMining = await fetchTxpool(client);
  assert.deepEqual(
    afterMining?.transactions.map((t) => t.hash),
    [waiting],
  );

  // A poll that read the pool before the block was written saves it after.
  const lateSnapshot = [...beforeMining!.transactions, ...afterMining!.transactions];
  assert.deepEqual(await replacePendingTransactions(db.pool, lateSnapshot), { added: 1, removed: 0 });
  assert.deepEqual([...(await insertedAt()).keys()], [waiting]);
  const firstSeen = (await insertedAt()).get(waiting);
  assert.deepEqual(await replacePendingTransactions(db.pool, afterMining!.transactions), { added: 0, removed: 0 });
  assert.equal((await insertedAt()).get(waiting), firstSeen, 'a transaction keeps the time it was first seen');
  assert.deepEqual(await replacePendingTransactions(db.pool, []), { added: 0, removed: 1 });
  assert.deepEqual(await listHashes({ filter: 'pending' }), []);
  await client.request('anvil_dropTransaction', [waiting]);
});

test('a snapshot saved while a block write is in flight waits for it, then leaves its transactions out', async () => {
  const poolCopy = unsentTransaction(`0x${'5a'.repeat(32)}`);
  const { hash } = poolCopy;
  const blockWrite = await db.pool.connect();
  try {
    // What writeBlockBundles does with a mined transaction, held open before its commit.
    await blockWrite.query('BEGIN');
    await blockWrite.query(
      `INSERT INTO transactions (hash, block_number, block_hash, index, block_timestamp, from_address, nonce, value,
                                 gas_limit, input, gas_used, cumulative_gas_used)
       VALUES ($1, 1000000000, $1, 0, now(), $2, 0, 1, 21000, '\\x', 21000, 21000)`,
      [bytea(hash), bytea(poolCopy.from)],
    );
    await removeMinedFromPending(blockWrite, [hash]);
    let saved = false;
    const snapshot = replacePendingTransactions(db.pool, [poolCopy]).finally(() => (saved = true));
    await waitFor(async () => (await lockWaiters()) > 0, 'the snapshot waits for the block write');
    assert.equal(saved, false);
    await blockWrite.query('COMMIT');
    assert.deepEqual(await snapshot, { added: 0, removed: 0 });
    assert.equal((await insertedAt()).get(hash), undefined, `${hash} is not listed as pending`);
  } finally {
    await blockWrite.query('ROLLBACK').catch(() => undefined);
    await blockWrite.query('DELETE FROM transactions WHERE hash = $1', [bytea(hash)]);
    blockWrite.release();
  }
});

/** Sessions of the test database waiting for an advisory lock. */
async function lockWaiters(): Promise<number> {
  const { rows } = await db.pool.query<{ n: string }>(
    `SELECT count(*) AS n FROM pg_locks
     WHERE locktype = 'advisory' AND NOT granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
  );
  return Number(rows[0]!.n);
}

test('a node without txpool_content turns the stage off with one line, and the list empty', async (t) => {
  const node = await startReplayNode([]);
  t.after(() => node.stop());
  const lines: { level: number; msg: string }[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  // What an earlier node's pool left in the list.
  await replacePendingTransactions(db.pool, [unsentTransaction(`0x${'6b'.repeat(32)}`)]);
  assert.equal((await insertedAt()).size, 1);
  const stage = startPendingStage(stageOptions({ client: createRpcClient({ url: node.url }), logger, pollIntervalMs: 10 }));
  try {
    await waitFor(async () => (await insertedAt()).size === 0, 'the stage empties the list');
    // Long enough for twenty more polls, had the stage gone on polling.
    await sleep(200);
    assert.deepEqual(
      lines.map(({ level, msg }) => ({ level, msg })),
      [{ level: 30, msg: 'the node does not serve txpool_content: pending transactions are not listed' }],
    );
    assert.deepEqual(node.requests, [{ method: 'txpool_content', params: [] }]);
  } finally {
    await stage.stop();
  }
});

test('the stage lists the well-formed entries of a pool and names a malformed one once', async (t) => {
  const entry = (hash: Hex, nonce: number) => ({
    hash,
    from: accounts[1],
    to: accounts[2],
    nonce: `0x${nonce.toString(16)}`,
    type: '0x0',
    value: '0x1',
    gas: '0x5208',
    gasPrice: '0x1',
    input: '0x',
    blockHash: null,
    blockNumber: null,
    transactionIndex: null,
  });
  const [good, bad] = [`0x${'7c'.repeat(32)}`, `0x${'7d'.repeat(32)}`] as const;
  const content = { pending: { [accounts[1]!]: { '0': entry(good, 0), '1': { ...entry(bad, 1), value: 'much' } } }, queued: {} };
  const node = await startReplayNode([{ method: 'txpool_content', params: [], result: content }]);
  t.after(() => node.stop());
  const lines: { level: number; msg: string }[] = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  const stage = startPendingStage(stageOptions({ client: createRpcClient({ url: node.url }), logger, pollIntervalMs: 10 }));
  try {
    await waitFor(async () => node.requests.length >= 5, 'five polls');
    assert.deepEqual([...(await insertedAt()).keys()], [good]);
    assert.deepEqual(
      lines.map(({ level, msg }) => ({ level, msg })),
      [
        {
          level: 40,
          msg: `pool entry left out: invalid node response for txpool_content: pending.${accounts[1]}.1.value is not a hex quantity ("much")`,
        },
      ],
    );
  } finally {
    await stage.stop();
    await replacePendingTransactions(db.pool, []);
  }
});

test('sextant start lists the pool of the node it follows, until the transactions are mined', async () => {
  const sextantDb = await createTestDatabase({ migrated: false });
  const sextant = await startSextant({
    ETHEREUM_JSONRPC_HTTP_URL: anvil.rpcUrl,
    DATABASE_URL: sextantDb.url,
    INDEXER_POLL_INTERVAL_MS: '100',
  });
  try {
    const served = apiClient(sextant.baseUrl);
    const pendingHashes = async (filters: Record<string, string>) =>
      (await collectList(served, '/api/v2/transactions', filters)).items.map((item: { hash: Hex }) => item.hash);
    const sent = await send({ from: accounts[3], to: accounts[4], value: '0x7', gas: '0x5208', gasPrice: gwei(2) });
    await waitFor(async () => sameSet(await pendingHashes({ filter: 'pending' }), [sent]), 'sextant lists the transaction as pending');
    await client.request('evm_mine', []);
    await waitFor(async () => (await pendingHashes({})).includes(sent), 'sextant indexes the mined transaction');
    assert.deepEqual(await pendingHashes({ filter: 'pending' }), []);
  } finally {
    assert.equal(await sextant.stop(), 0, 'a clean exit on SIGTERM');
    await sextantDb.drop();
  }
});
