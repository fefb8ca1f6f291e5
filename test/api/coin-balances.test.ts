import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { pino } from 'pino';
import { createPublicClient, createWalletClient, getAddress, http, parseEther, parseEventLogs, type Hash, type Hex } from 'viem';
import { DemoCaller } from '../../src/demo/artifacts.js';
import type { Address } from '../../src/model.js';
import { startCoinBalanceStage } from '../../src/indexer/stages/coin-balance-stage.js';
import { startTraceStage } from '../../src/indexer/stages/trace-stage.js';
import type { BackgroundLoop } from '../../src/indexer/stages/background-loop.js';
import { saveCoinBalances } from '../../src/store/coin-balances.js';
import { retractBlocksFrom } from '../../src/store/retract-blocks.js';
import { type TestDatabase, createTestDatabase } from '../support/database.js';
import { syntheticAddress } from '../support/synthetic-chain.js';
import { type TokenChain, indexTokenChain, startTokenChain } from '../support/token-chain.js';
import { waitForMined } from '../support/mined.js';
import { waitFor } from '../support/wait.js';
import { type RunningApi, collectList, startApi } from './http.js';

interface CoinBalance {
  block_number: number;
  block_timestamp: string;
  delta: string;
  transaction_hash: string | null;
  value: string;
}

/** The node's own answers, asked apart from the stage: the head's number, and a balance at a block. */
const nodeHead = async (chain: TokenChain): Promise<number> => Number(BigInt(await chain.client.request<string>('eth_blockNumber', [])));
const nodeBalance = async (chain: TokenChain, address: string, block: number): Promise<string> =>
  BigInt(await chain.client.request<string>('eth_getBalance', [address, `0x${block.toString(16)}`])).toString();

interface ParityTrace {
  type: string;
  action: { callType?: string; from?: string; to?: string; value?: string; address?: string; refundAddress?: string; balance?: string };
  result?: { address?: string } | null;
  error?: string;
  transactionHash: string;
}

/**
 * The transaction Blockscout shows a balance read at `block` with, from the node: the first of the
 * block's transactions the address sent or received that moved coin (a value or a fee), else the
 * first successful call, creation or self-destruct of its traces that carried value from or to it.
 */
async function nodeBalanceTransaction(chain: TokenChain, address: string, block: number): Promise<string | null> {
  const tag = `0x${block.toString(16)}`;
  const { transactions } = await chain.client.request<{ transactions: { hash: string; from: string; to: string | null; value: string }[] }>(
    'eth_getBlockByNumber',
    [tag, true],
  );
  const a = address.toLowerCase();
  for (const t of transactions) {
    if (t.from.toLowerCase() !== a && t.to?.toLowerCase() !== a) continue;
    const receipt = await chain.client.request<{ gasUsed: string; effectiveGasPrice: string }>('eth_getTransactionReceipt', [t.hash]);
    if (BigInt(t.value) > 0n || (BigInt(receipt.effectiveGasPrice) > 0n && BigInt(receipt.gasUsed) > 0n)) return t.hash;
  }
  for (const trace of await chain.client.request<ParityTrace[]>('trace_block', [tag])) {
    const { action } = trace;
    const [from, to, value] =
      trace.type === 'suicide'
        ? [action.address, action.refundAddress, action.balance]
        : [action.from, action.to ?? trace.result?.address, action.value];
    const kind = trace.type === 'call' ? action.callType === 'call' : trace.type === 'create' || trace.type === 'suicide';
    if (kind && trace.error === undefined && BigInt(value ?? 0) > 0n && [from, to].some((p) => p?.toLowerCase() === a))
      return trace.transactionHash;
  }
  return null;
}

describe('native coin balances on the demo chain', () => {
  let chain: TokenChain;
  let db: TestDatabase;
  let api: RunningApi;
  let stage: BackgroundLoop;
  let accounts: string[];

  const history = async (address: string): Promise<CoinBalance[]> =>
    (await collectList(api, `/api/v2/addresses/${address}/coin-balance-history`, {})).items as CoinBalance[];
  const addressPage = async (address: string) => (await api.get(`/api/v2/addresses/${address}`)).body;
  const markCount = async (): Promise<number> => Number((await db.pool.query('SELECT count(*) AS n FROM coin_balance_marks')).rows[0].n);
  /** Every marked balance read, at the head the indexer reached. */
  const balancesRead = async () =>
    waitFor(async () => (await markCount()) === 0, 'every marked coin balance is read', { timeoutMs: 60_000 });

  before(async () => {
    chain = await startTokenChain();
    // Empty blocks after the demo's, so that the paging test has more heights than a page holds.
    await chain.client.request('anvil_mine', ['0x3c']);
    db = await createTestDatabase();
    await indexTokenChain(chain, db);
    stage = startCoinBalanceStage({
      pool: db.pool,
      client: chain.client,
      logger: pino({ level: 'silent' }),
      batchSize: 7,
      pollIntervalMs: 50,
      backoff: { initialMs: 10, maxMs: 100 },
    });
    api = await startApi(db.pool);
    accounts = (await chain.client.request<string[]>('eth_accounts', [])).map((a) => a.toLowerCase());
    await balancesRead();
  });
  after(async () => {
    await stage?.stop();
    await api?.close();
    await db?.drop();
    await chain?.anvil.stop();
  });

  test("every demo account's coin balance is the node's eth_getBalance at the indexed head", async () => {
    const head = await nodeHead(chain);
    // The demo sends from the first accounts; an account it never touches has no balance read.
    const touched = accounts;
    let read = 0;
    for (const account of touched) {
      const page = await addressPage(account);
      if (page.coin_balance === null) {
        assert.equal(page.block_number_balance_updated_at, null, account);
        assert.deepEqual(await history(account), [], account);
        continue;
      }
      read++;
      assert.equal(page.block_number_balance_updated_at, head, account);
      assert.equal(page.coin_balance, await nodeBalance(chain, account, head), account);
    }
    assert.ok(read >= 2, `the demo's senders and recipients have balances (${read} of ${touched.length})`);
    // Every address with a read, contracts and the miner included, agrees with the node.
    const { rows } = await db.pool.query<{ address: string }>(
      `SELECT DISTINCT '0x' || encode(address, 'hex') AS address FROM address_coin_balances`,
    );
    assert.ok(rows.length > read, 'contracts and the miner are read too');
    for (const { address } of rows) {
      const [latest] = await history(address);
      assert.equal(latest?.value, await nodeBalance(chain, address, head), address);
      assert.equal(latest?.block_number, head, address);
      assert.equal(latest?.transaction_hash, await nodeBalanceTransaction(chain, address, head), address);
      assert.match(latest?.block_timestamp ?? '', /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
    }
  });

  test('a new block adds a row to the history of the addresses it touches, with the change as delta', async () => {
    const [from, to] = accounts as [string, string];
    const before = await history(to);
    const amount = 123_456_789n;
    await waitForMined(
      chain.client,
      await chain.client.request<Hex>('eth_sendTransaction', [{ from, to, value: `0x${amount.toString(16)}` }]),
    );
    const head = await nodeHead(chain);
    await indexTokenChain(chain, db);
    await balancesRead();
    const after = await history(to);
    assert.equal(after.length, before.length + 1);
    assert.deepEqual(after.slice(1), before, 'the older reads stay as they were');
    assert.equal(after[0]!.block_number, head);
    assert.equal(after[0]!.value, await nodeBalance(chain, to, head));
    assert.equal(after[0]!.delta, amount.toString(), 'the recipient gained exactly the value sent');
    assert.equal(BigInt(after[0]!.value) - BigInt(before[0]!.value), amount);
    const sent = await nodeBalanceTransaction(chain, to, head);
    assert.notEqual(sent, null);
    assert.equal(after[0]!.transaction_hash, sent, 'the read names the transfer that changed the balance');
    const sender = await history(from);
    assert.equal(sender[0]!.transaction_hash, sent);
    assert.equal(sender[0]!.block_number, head);
    assert.ok(BigInt(sender[0]!.delta) < -amount, 'the sender paid the value and the fee');
    assert.equal((await addressPage(getAddress(to))).block_number_balance_updated_at, head);
  });

  test("a retraction removes the lost heights' rows and the addresses are read again", async () => {
    const head = await nodeHead(chain);
    const [from, to] = accounts as [string, string];
    await stage.stop();
    await retractBlocksFrom(db.pool, BigInt(head));
    for (const address of [from, to]) {
      const rows = await history(address);
      assert.ok(rows.length > 0 && rows.every((r) => r.block_number < head), `${address}: no read at ${head} is left`);
      assert.equal((await addressPage(address)).block_number_balance_updated_at, rows[0]!.block_number);
    }
    const marked = await db.pool.query(`SELECT 1 FROM coin_balance_marks WHERE address = ANY($1::bytea[])`, [
      [from, to].map((a) => Buffer.from(a.slice(2), 'hex')),
    ]);
    assert.equal(marked.rowCount, 2, 'both parties are marked to be read again');
    // The block comes back; the stage reads them at the head again.
    await indexTokenChain(chain, db);
    stage = startCoinBalanceStage({
      pool: db.pool,
      client: chain.client,
      logger: pino({ level: 'silent' }),
      batchSize: 7,
      pollIntervalMs: 50,
      backoff: { initialMs: 10, maxMs: 100 },
    });
    await balancesRead();
    assert.equal((await history(to))[0]!.block_number, head);
    assert.equal((await history(to))[0]!.value, await nodeBalance(chain, to, head));
  });

  test('where the node no longer keeps the state of the indexed head, the marks wait for the head to move, and the stage is drained meanwhile', async () => {
    const [from, to] = accounts as [string, string];
    await stage.stop();
    await waitForMined(chain.client, await chain.client.request<Hex>('eth_sendTransaction', [{ from, to, value: '0x1' }]));
    await indexTokenChain(chain, db);
    const indexed = await nodeHead(chain);
    // anvil --prune-history keeps the state of its head alone: that of the indexed head is gone.
    await chain.client.request('anvil_mine', ['0x1']);
    await assert.rejects(nodeBalance(chain, to, indexed), /block height is/);
    stage = startCoinBalanceStage({
      pool: db.pool,
      client: chain.client,
      logger: pino({ level: 'silent' }),
      batchSize: 7,
      pollIntervalMs: 50,
      backoff: { initialMs: 10, maxMs: 100 },
    });
    let drained = false;
    const draining = stage.drained().then(() => (drained = true));
    await waitFor(() => drained, 'the stage is drained, though it cannot read the marked balances', { timeoutMs: 30_000 });
    await draining;
    const marked = await db.pool.query(`SELECT 1 FROM coin_balance_marks WHERE address = ANY($1::bytea[])`, [
      [from, to].map((a) => Buffer.from(a.slice(2), 'hex')),
    ]);
    assert.equal(marked.rowCount, 2, 'both parties are still to be read');
    assert.ok((await history(to))[0]!.block_number < indexed, 'no balance is stored for the height the node could not answer for');
    await indexTokenChain(chain, db);
    await balancesRead();
    const head = await nodeHead(chain);
    assert.equal((await history(to))[0]!.block_number, head);
    assert.equal((await history(to))[0]!.value, await nodeBalance(chain, to, head));
  });

  test('the history is paged newest first, 50 a page, by block_number', async () => {
    const address = syntheticAddress('coin-history') as Address;
    const { rows } = await db.pool.query<{ number: string; hash: Buffer }>(
      'SELECT number, hash FROM blocks WHERE consensus ORDER BY number',
    );
    assert.ok(rows.length > 51, `enough blocks for two pages (${rows.length})`);
    // One read per block, the value the block's number squared.
    for (const row of rows) {
      const saved = await saveCoinBalances(db.pool, { number: BigInt(row.number), hash: `0x${row.hash.toString('hex')}` }, [
        { address, mark: 0n, value: BigInt(row.number) ** 2n },
      ]);
      assert.equal(saved, true);
    }
    const { items, pageSizes, nextPageParams } = await collectList(api, `/api/v2/addresses/${address}/coin-balance-history`, {});
    const numbers = rows.map((r) => Number(r.number)).reverse();
    assert.deepEqual(
      (items as CoinBalance[]).map((i) => i.block_number),
      numbers,
    );
    const sizes = [...Array(Math.floor(numbers.length / 50)).fill(50), ...(numbers.length % 50 === 0 ? [] : [numbers.length % 50])];
    assert.deepEqual(pageSizes, sizes);
    assert.equal(nextPageParams.length, sizes.length - 1);
    for (const item of items as CoinBalance[]) {
      const n = BigInt(item.block_number);
      assert.equal(item.value, (n * n).toString());
      assert.equal(item.delta, (n === BigInt(numbers.at(-1)!) ? n * n : n * n - (n - 1n) ** 2n).toString());
    }
    const first = await api.get(`/api/v2/addresses/${address}/coin-balance-history`);
    assert.deepEqual(first.body.next_page_params, { block_number: numbers[49], items_count: 50 });
  });

  test('malformed input is a 422 naming the parameter', async () => {
    const pointers = async (url: string) => {
      const { status, body } = await api.get(url);
      assert.equal(status, 422, url);
      return body.errors.map((e: { source: { pointer: string } }) => e.source.pointer).sort();
    };
    const base = `/api/v2/addresses/${accounts[0]}/coin-balance-history`;
    assert.deepEqual(await pointers('/api/v2/addresses/0x1234/coin-balance-history'), ['/address_hash']);
    assert.deepEqual(await pointers(`${base}?block_number=-1`), ['/block_number']);
    assert.deepEqual(await pointers(`${base}?block_number=abc`), ['/block_number']);
    assert.deepEqual(await pointers(`${base}?block_number=10&items_count=0`), ['/items_count']);
  });

  test('an address never read has an empty history and a null balance', async () => {
    const unknown = syntheticAddress('never-read');
    assert.deepEqual((await api.get(`/api/v2/addresses/${unknown}/coin-balance-history`)).body, { items: [], next_page_params: null });
    const page = await addressPage(unknown);
    assert.equal(page.coin_balance, null);
    assert.equal(page.block_number_balance_updated_at, null);
  });
  test('addresses only internal transactions pay are read once their blocks are traced, and again when a reorg takes the payments away', async () => {
    const { caller } = chain.scenario.contracts;
    const { deployer } = chain.scenario.accounts;
    const transport = http(chain.anvil.rpcUrl);
    const wallet = createWalletClient({ transport });
    const receipt = async (hash: Hash) => createPublicClient({ transport }).waitForTransactionReceipt({ hash, pollingInterval: 5 });
    const call = { address: caller, abi: DemoCaller.abi, chain: null, account: deployer } as const;
    const payee = syntheticAddress('paid by an internal call');
    const beneficiary = syntheticAddress('paid by a self-destruct');
    const untraced = async (): Promise<number> =>
      Number((await db.pool.query('SELECT count(*) AS n FROM blocks WHERE consensus AND traced_at IS NULL')).rows[0].n);
    const settled = async () => {
      await indexTokenChain(chain, db);
      await waitFor(async () => (await untraced()) === 0, 'every block is traced', { timeoutMs: 60_000 });
      await balancesRead();
    };
    const latest = async (address: string) => (await history(address))[0];
    const traces = startTraceStage({
      pool: db.pool,
      client: chain.client,
      traceMethod: 'trace_block',
      logger: pino({ level: 'silent' }),
      batchSize: 5,
      concurrency: 2,
      pollIntervalMs: 50,
      backoff: { initialMs: 10, maxMs: 100 },
    });
    try {
      await settled();
      const snapshot = await chain.client.request<string>('evm_snapshot', []);
      const paidFrom = BigInt(await nodeHead(chain)) + 1n;
      await receipt(await wallet.writeContract({ ...call, functionName: 'split', args: [[payee]], value: parseEther('0.3') }));
      // The child gets all of it: half at its creation, half by a call.
      const spawned = await receipt(await wallet.writeContract({ ...call, functionName: 'spawn', value: parseEther('0.2') }));
      const [created] = parseEventLogs({ abi: DemoCaller.abi, eventName: 'ChildCreated', logs: spawned.logs });
      const child = created!.args.child.toLowerCase();
      await receipt(await wallet.writeContract({ ...call, functionName: 'destroyChild', args: [created!.args.child, beneficiary] }));
      const head = await nodeHead(chain);

      // The blocks alone name none of the three: the caller's transactions are the deployer's to the caller.
      await indexTokenChain(chain, db);
      const marked = await db.pool.query('SELECT 1 FROM coin_balance_marks WHERE address = ANY($1::bytea[])', [
        [payee, beneficiary, child].map((a) => Buffer.from(a.slice(2), 'hex')),
      ]);
      assert.equal(marked.rowCount, 0, 'no block marks the addresses internal transactions pay');
      await settled();
      for (const [address, expected] of [
        [payee, parseEther('0.3')],
        [beneficiary, parseEther('0.2')],
        [child, 0n],
      ] as const) {
        const row = await latest(address);
        assert.equal(row?.block_number, head, address);
        assert.equal(row?.value, await nodeBalance(chain, address, head), address);
        assert.equal(row?.value, expected.toString(), address);
        assert.equal(row?.transaction_hash, await nodeBalanceTransaction(chain, address, head), address);
      }
      // The self-destruct's beneficiary is named by it: no transaction of the block sends it anything.
      assert.notEqual((await latest(beneficiary))?.transaction_hash, null);

      // The node leaves the branch of the payments for a longer one without them.
      assert.equal(await chain.client.request<boolean>('evm_revert', [snapshot]), true);
      await chain.client.request('anvil_mine', ['0x4']);
      const newHead = await nodeHead(chain);
      await retractBlocksFrom(db.pool, paidFrom);
      await settled();
      for (const address of [payee, beneficiary, child]) {
        const row = await latest(address);
        assert.equal(row?.block_number, newHead, address);
        assert.equal(row?.value, await nodeBalance(chain, address, newHead), address);
        assert.equal(row?.value, '0', address);
      }
    } finally {
      await traces.stop();
    }
  });

  test("the balance chart by day: each day's largest read, the newest read last, an unknown address empty", async () => {
    const [from, to] = [accounts[0]!, accounts[2]!];
    const send = async (sender: string, recipient: string, value: bigint) =>
      waitForMined(
        chain.client,
        await chain.client.request<Hex>('eth_sendTransaction', [{ from: sender, to: recipient, value: `0x${value.toString(16)}` }]),
      );
    // Tomorrow on the chain: two reads that day, the second, the newest, below the first.
    await chain.client.request('evm_increaseTime', [86_400]);
    await send(from, to, parseEther('2'));
    await indexTokenChain(chain, db);
    await balancesRead();
    await send(to, from, parseEther('1'));
    await indexTokenChain(chain, db);
    await balancesRead();

    const { rows } = await db.pool.query<{ day: string; value: string; block_number: string }>(
      `SELECT to_char(b.timestamp AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, c.value::text, c.block_number::text
       FROM address_coin_balances c JOIN blocks b ON b.number = c.block_number AND b.consensus
       WHERE c.address = $1 ORDER BY c.block_number`,
      [Buffer.from(to.slice(2), 'hex')],
    );
    const largest = new Map<string, bigint>();
    for (const r of rows) largest.set(r.day, BigInt(r.value) > (largest.get(r.day) ?? -1n) ? BigInt(r.value) : largest.get(r.day)!);
    const expected = [...largest].map(([date, value]) => ({ date, value: value.toString() }));
    const newest = rows.at(-1)!;
    expected[expected.length - 1] = { date: newest.day, value: newest.value };
    assert.ok(expected.length >= 2, `reads on ${expected.length} days`);
    assert.ok(largest.get(newest.day)! > BigInt(newest.value), 'the last day shows its newest read, not its largest');

    const chart = (await api.get(`/api/v2/addresses/${to}/coin-balance-history-by-day`)).body;
    assert.deepEqual(chart, { days: 10, items: expected });
    assert.equal(chart.items.at(-1)!.value, await nodeBalance(chain, to, await nodeHead(chain)), "the chart ends on the node's balance");
    assert.deepEqual((await api.get(`/api/v2/addresses/${syntheticAddress('never read')}/coin-balance-history-by-day`)).body, {
      days: 10,
      items: [],
    });
    assert.equal((await api.get('/api/v2/addresses/0x12/coin-balance-history-by-day')).status, 422);
  });
});
