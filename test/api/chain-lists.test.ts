import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { pino } from 'pino';
import { type Address, type Hex, createWalletClient, getAddress, http } from 'viem';
import { detectCapabilities } from '../../src/chain/capabilities.js';
import { DemoCaller, DemoERC20 } from '../../src/demo/artifacts.js';
import { startCoinBalanceStage } from '../../src/indexer/stages/coin-balance-stage.js';
import { startTokenMetadataStage } from '../../src/indexer/stages/token-metadata-stage.js';
import { startTraceStage } from '../../src/indexer/stages/trace-stage.js';
import { savePrices } from '../../src/store/market.js';
import type { BackgroundLoop } from '../../src/indexer/stages/background-loop.js';
import { type TestDatabase, createTestDatabase } from '../support/database.js';
import { unfinishedWork } from '../support/database-snapshot.js';
import { waitForMined } from '../support/mined.js';
import { type NodeTransfer, type TokenChain, indexTokenChain, nodeTransfers, startTokenChain } from '../support/token-chain.js';
import { waitFor } from '../support/wait.js';
import { type RunningApi, assertFullPages, collectList, startApi } from './http.js';

/**
 * The chain-wide lists of the frontend (/tokens, /accounts, token transfers, internal transactions)
 * against the token chain on anvil, with more tokens, holders and internal transactions than a page
 * holds: every walk by next_page_params is compared with what the node says (its logs, traces and
 * balances) or, for the token list's order, with the tokens table sorted by PostgreSQL (whose collation
 * orders the names).
 */

let chain: TokenChain;
let db: TestDatabase;
let api: RunningApi;
const stages: BackgroundLoop[] = [];

/** Extra ERC-20 tokens, the i-th minted to 1 + i % 5 holders (ties of holders_count and name across pages). */
const extraTokens = 56;
/** Two splits, each sending the same value to 40 new addresses: 40-way ties of balance, across a page's end. */
const splitRecipients = [0, 1].map((split) =>
  Array.from({ length: 40 }, (_, i) => `0x${(0x5e70000 + split * 0x100 + i).toString(16).padStart(40, '0')}` as Address),
);
const extraTokenAddresses: Address[] = [];

async function addTokensAndSplits(): Promise<void> {
  const { deployer, alice, bob, carol, dave, payees } = chain.scenario.accounts;
  const holders = [alice, bob, carol, dave, payees[0]!];
  const wallet = createWalletClient({ transport: http(chain.anvil.rpcUrl) });
  for (let i = 0; i < extraTokens; i++) {
    const hash = await wallet.deployContract({ abi: DemoERC20.abi, bytecode: DemoERC20.bytecode, account: deployer, chain: null });
    await waitForMined(chain.client, hash);
    const receipt = await chain.client.request<{ contractAddress: Address }>('eth_getTransactionReceipt', [hash]);
    extraTokenAddresses.push(receipt.contractAddress);
    for (const holder of holders.slice(0, (i % 5) + 1)) {
      const call = { address: receipt.contractAddress, abi: DemoERC20.abi, chain: null } as const;
      await waitForMined(
        chain.client,
        await wallet.writeContract({ ...call, account: deployer, functionName: 'mint', args: [holder, 10n] }),
      );
    }
  }
  for (const [split, recipients] of splitRecipients.entries()) {
    const value = BigInt(recipients.length) * 1_000_000_000_000_000n * BigInt(split + 1);
    const call = { address: chain.scenario.contracts.caller, abi: DemoCaller.abi, chain: null } as const;
    await waitForMined(
      chain.client,
      await wallet.writeContract({ ...call, account: deployer, functionName: 'split', args: [recipients], value }),
    );
  }
}

before(async () => {
  chain = await startTokenChain();
  await addTokensAndSplits();
  db = await createTestDatabase();
  await indexTokenChain(chain, db);
  const background = { pool: db.pool, client: chain.client, logger: pino({ level: 'silent' }), pollIntervalMs: 50 };
  const backoff = { backoff: { initialMs: 10, maxMs: 100 } };
  const { traceMethod } = await detectCapabilities(chain.client);
  stages.push(startTraceStage({ ...background, ...backoff, traceMethod, batchSize: 10, concurrency: 2 }));
  stages.push(startTokenMetadataStage({ ...background, ...backoff, batchSize: 20 }));
  stages.push(startCoinBalanceStage({ ...background, ...backoff, batchSize: 50 }));
  const head = BigInt(await chain.client.request<Hex>('eth_blockNumber', []));
  await waitFor(
    async () => (await unfinishedWork(db.pool, head)).filter((what) => !/NFT metadata|contract|proxy|checkpoints/.test(what)).length === 0,
    'the chain is traced, its tokens read and its coin balances read',
    { timeoutMs: 120_000 },
  );
  api = await startApi(db.pool);
});

after(async () => {
  for (const stage of stages) await stage.stop();
  await api?.close();
  await db?.drop();
  await chain?.anvil.stop();
});

const pointers = (body: any): string[] => body.errors.map((e: { source: { pointer: string } }) => e.source.pointer);

async function assertInvalid(path: string, expected: string[]): Promise<void> {
  const response = await api.get(path);
  assert.equal(response.status, 422, `${path}: ${response.text}`);
  assert.deepEqual(pointers(response.body).sort(), expected.sort(), path);
}

// --- /api/v2/tokens

/** Every token as PostgreSQL sorts them: most holders first, then by name (unnamed last), then by address. */
async function tokensInOrder(where = 'true', values: unknown[] = []): Promise<string[]> {
  const { rows } = await db.pool.query<{ address: string }>(
    `SELECT '0x' || encode(address, 'hex') AS address FROM tokens WHERE ${where}
     ORDER BY holders_count DESC, name ASC NULLS LAST, address ASC`,
    values,
  );
  return rows.map((r) => getAddress(r.address));
}

test('the token list walks every token, most holders first, then by name, then by address', async () => {
  const list = await collectList(api, '/api/v2/tokens');
  assertFullPages(list);
  assert.ok(list.pageSizes.length >= 2, `${list.pageSizes} pages`);
  assert.deepEqual(
    list.items.map((t) => t.address_hash),
    await tokensInOrder(),
  );
  for (const [i, token] of extraTokenAddresses.entries()) {
    const item = list.items.find((t) => t.address_hash === getAddress(token));
    assert.equal(item?.holders_count, String((i % 5) + 1), token);
    assert.equal(item?.name, 'Sextant Demo Token');
    assert.equal(item?.symbol, 'SDT');
    assert.equal(item?.type, 'ERC-20');
  }
  const last = list.nextPageParams.at(-1)!;
  assert.deepEqual(Object.keys(last).sort(), [
    'contract_address_hash',
    'fiat_value',
    'holders_count',
    'is_name_null',
    'items_count',
    'market_cap',
    'name',
  ]);
  assert.deepEqual([last.fiat_value, last.market_cap], [null, null], 'no price source');
  const unnamed = list.items.filter((t) => t.name === null);
  assert.ok(unnamed.length >= 1, 'the demo ERC-1155 has no name');
});

test('a page that ends on an unnamed token continues after it', async () => {
  const all = (await collectList(api, '/api/v2/tokens')).items;
  const index = all.findIndex((t) => t.name === null);
  const token = all[index]!;
  const page = await api.get(
    `/api/v2/tokens?contract_address_hash=${token.address_hash}&holders_count=${token.holders_count}&is_name_null=true&name=null&market_cap=null&fiat_value=&items_count=50`,
  );
  assert.equal(page.status, 200);
  assert.deepEqual(
    page.body.items.map((t: any) => t.address_hash),
    all.slice(index + 1, index + 51).map((t) => t.address_hash),
  );
});

test('the token list filtered by type', async () => {
  for (const [type, types] of [
    ['ERC-721', ['ERC-721']],
    ['erc-20,ERC-1155', ['ERC-20', 'ERC-1155']],
    ['[ERC-1155]', ['ERC-1155']],
    ['ERC-404', ['ERC-404']],
  ] as const) {
    const list = await collectList(api, '/api/v2/tokens', { type });
    assertFullPages(list);
    assert.deepEqual(
      list.items.map((t) => t.address_hash),
      await tokensInOrder('type = ANY($1::text[])', [types]),
      type,
    );
  }
});

test('the token list searched by words of the name or symbol, as the search finds them', async () => {
  const sdt = await collectList(api, '/api/v2/tokens', { q: 'sdt' });
  assert.equal(sdt.items.length, extraTokens + 1, 'the demo ERC-20 and the extra tokens');
  assert.deepEqual(
    sdt.items.map((t) => t.address_hash),
    (await tokensInOrder()).filter((address) => sdt.items.some((t) => t.address_hash === address)),
  );
  assert.ok(sdt.items.every((t) => t.symbol === 'SDT'));
  // Each word a prefix of a word of the symbol or name, all required: the NFT's name shares the first two.
  const words = await collectList(api, '/api/v2/tokens', { q: 'Sext dem tok' });
  assert.deepEqual(words.items, sdt.items);
  const demo = await collectList(api, '/api/v2/tokens', { q: 'Sext dem' });
  const erc721 = getAddress(chain.scenario.contracts.erc721);
  assert.deepEqual(
    demo.items.map((t) => t.address_hash),
    (await tokensInOrder()).filter((address) => address === erc721 || sdt.items.some((t) => t.address_hash === address)),
  );
  const typed = await collectList(api, '/api/v2/tokens', { q: 'sdt', type: 'ERC-721' });
  assert.deepEqual(typed.items, []);
  for (const q of ['', '!!!']) {
    assert.deepEqual((await collectList(api, '/api/v2/tokens', { q })).items.length, (await tokensInOrder()).length, `q=${q}`);
  }
  assert.deepEqual((await collectList(api, '/api/v2/tokens', { q: 'nothingmatchesthis' })).items, []);
});

test('fewest holders first, then by name, then by address, as sort=holders_count&order=asc asks', async () => {
  const sort = { sort: 'holders_count', order: 'asc' };
  const list = await collectList(api, '/api/v2/tokens', sort);
  assertFullPages(list);
  assert.ok(list.pageSizes.length >= 2, `${list.pageSizes} pages`);
  const { rows } = await db.pool.query<{ address: string }>(
    `SELECT '0x' || encode(address, 'hex') AS address FROM tokens ORDER BY holders_count ASC, name ASC NULLS LAST, address ASC`,
  );
  assert.deepEqual(
    list.items.map((t) => t.address_hash),
    rows.map((r) => getAddress(r.address)),
  );
  const typed = await collectList(api, '/api/v2/tokens', { ...sort, type: 'ERC-20', q: 'sdt' });
  assert.deepEqual(
    typed.items.map((t) => t.address_hash),
    list.items.filter((t) => t.symbol === 'SDT').map((t) => t.address_hash),
  );
});

test('sorts by market data, which no token has, keep the list in its order, most holders first', async () => {
  const plain = (await api.get('/api/v2/tokens')).body;
  for (const query of [
    'sort=circulating_market_cap&order=asc',
    'sort=fiat_value&order=desc',
    'sort=holders_count&order=desc',
    'sort=holders_count',
    'order=asc',
  ]) {
    assert.deepEqual((await api.get(`/api/v2/tokens?${query}`)).body, plain, query);
  }
});

test("with prices, the token list is in Blockscout's market order, for each sort, across pages and filters", async () => {
  // Market caps and prices for 36 tokens: both, a cap alone, a price alone, with ties of each.
  const priced = extraTokenAddresses.slice(0, 36).map((address, i) => ({
    address: address.toLowerCase() as Address,
    circulatingMarketCap: i % 3 === 2 ? null : String(1000 * (i % 7)),
    fiatValue: i % 3 === 1 ? null : `${i % 4}.25`,
    volume24h: null,
    iconUrl: null,
  }));
  await savePrices(db.pool, null, priced);
  try {
    const then = `k.holders_count DESC, k.name ASC NULLS LAST, k.address ASC`;
    const byHolders = (direction: string) =>
      `k.holders_count ${direction}, m.circulating_market_cap DESC NULLS LAST, m.fiat_value DESC NULLS LAST, ${then}`;
    const cases: [Record<string, string>, string][] = [
      [{}, `m.circulating_market_cap DESC NULLS LAST, m.fiat_value DESC NULLS LAST, ${then}`],
      [
        { sort: 'circulating_market_cap', order: 'desc' },
        `m.circulating_market_cap DESC NULLS LAST, m.fiat_value DESC NULLS LAST, ${then}`,
      ],
      [{ sort: 'circulating_market_cap', order: 'asc' }, `m.circulating_market_cap ASC NULLS FIRST, m.fiat_value DESC NULLS LAST, ${then}`],
      [{ sort: 'fiat_value', order: 'desc' }, `m.fiat_value DESC NULLS LAST, m.circulating_market_cap DESC NULLS LAST, ${then}`],
      [{ sort: 'fiat_value', order: 'asc' }, `m.fiat_value ASC NULLS FIRST, m.circulating_market_cap DESC NULLS LAST, ${then}`],
      [{ sort: 'holders_count', order: 'asc' }, byHolders('ASC')],
      [{ sort: 'holders_count', order: 'desc' }, byHolders('DESC')],
    ];
    for (const [query, order] of cases) {
      for (const filter of [{}, { type: 'ERC-20', q: 'sdt' }] as Record<string, string>[]) {
        const list = await collectList(api, '/api/v2/tokens', { ...query, ...filter });
        assertFullPages(list);
        const where = 'q' in filter ? "k.type = 'ERC-20' AND k.symbol = 'SDT'" : 'true';
        const { rows } = await db.pool.query<{ address: string }>(
          `SELECT '0x' || encode(k.address, 'hex') AS address FROM tokens k LEFT JOIN token_market m ON m.address = k.address
           WHERE ${where} ORDER BY ${order}`,
        );
        const label = JSON.stringify({ ...query, ...filter });
        assert.deepEqual(
          list.items.map((t) => t.address_hash),
          rows.map((r) => getAddress(r.address)),
          label,
        );
        assert.ok(list.pageSizes.length >= 2, `${label}: ${list.pageSizes} pages`);
      }
    }
    const first = (await api.get('/api/v2/tokens')).body;
    const top = priced.find((t) => getAddress(t.address) === first.items[0].address_hash)!;
    assert.deepEqual([first.items[0].circulating_market_cap, first.items[0].exchange_rate], [top.circulatingMarketCap, top.fiatValue]);
    const lastOnPage = first.items.at(-1);
    assert.deepEqual(
      [first.next_page_params.market_cap, first.next_page_params.fiat_value],
      [lastOnPage.circulating_market_cap, lastOnPage.exchange_rate],
    );
  } finally {
    await savePrices(db.pool, null, null);
  }
});

test('bad token list parameters are a 422 naming them', async () => {
  const address = `0x${'ab'.repeat(20)}`;
  for (const [query, expected] of [
    ['type=ERC-9', ['/type']],
    ['sort=price', ['/sort']],
    ['order=up', ['/order']],
    [`q=${'a'.repeat(257)}`, ['/q']],
    [`contract_address_hash=${address}`, ['/fiat_value', '/holders_count', '/is_name_null', '/market_cap', '/name']],
    [`contract_address_hash=${address}&holders_count=1e3&is_name_null=false&name=x&market_cap=&fiat_value=`, ['/holders_count']],
    [`contract_address_hash=0x12&holders_count=3&is_name_null=false&name=x&market_cap=&fiat_value=`, ['/contract_address_hash']],
    [`contract_address_hash=${address}&holders_count=3&is_name_null=maybe&name=x&market_cap=&fiat_value=`, ['/is_name_null']],
    [
      `contract_address_hash=${address}&holders_count=3&is_name_null=false&name=x&market_cap=1e9&fiat_value=-2`,
      ['/fiat_value', '/market_cap'],
    ],
    [`contract_address_hash=${address}&holders_count=3&is_name_null=false&name=x&market_cap=&fiat_value=&items_count=51`, ['/items_count']],
  ] as const) {
    await assertInvalid(`/api/v2/tokens?${query}`, [...expected]);
  }
});

// --- /api/v2/addresses

const nodeBalance = async (address: string): Promise<bigint> =>
  BigInt(await chain.client.request<Hex>('eth_getBalance', [address, 'latest']));

test("the top accounts walk every address with a positive balance, the node's, largest first, then by address", async () => {
  const list = await collectList(api, '/api/v2/addresses');
  assertFullPages(list);
  assert.ok(list.pageSizes.length >= 2, `${list.pageSizes} pages`);
  const byBalanceThenAddress = [...list.items].sort((a, b) => {
    const difference = BigInt(b.coin_balance) - BigInt(a.coin_balance);
    return difference > 0n ? 1 : difference < 0n ? -1 : a.hash.toLowerCase() < b.hash.toLowerCase() ? -1 : 1;
  });
  assert.deepEqual(list.items, byBalanceThenAddress, 'ordered');
  for (const item of list.items) {
    assert.equal(item.coin_balance, (await nodeBalance(item.hash)).toString(), item.hash);
    assert.ok(BigInt(item.coin_balance) > 0n);
  }
  // Every address the chain's blocks and traces moved coin to or from, with a positive balance, is listed.
  const listed = new Set(list.items.map((item) => item.hash.toLowerCase()));
  const accounts = await chain.client.request<string[]>('eth_accounts', []);
  for (const address of [...accounts, ...splitRecipients.flat(), chain.scenario.contracts.caller]) {
    if ((await nodeBalance(address)) > 0n) assert.ok(listed.has(address.toLowerCase()), `${address} is listed`);
  }
  for (const [split, recipients] of splitRecipients.entries()) {
    for (const recipient of recipients) {
      const item = list.items.find((i) => i.hash === getAddress(recipient));
      assert.equal(item?.coin_balance, (1_000_000_000_000_000n * BigInt(split + 1)).toString(), recipient);
      assert.equal(item?.transactions_count, '0', 'paid by internal transactions only');
      assert.equal(item?.is_contract, false);
    }
  }
  const contracts = list.items.filter((i) => i.is_contract);
  assert.ok(contracts.length >= 1, 'contracts that hold coin (the demo spawns children with value)');
  const deployer = list.items.find((i) => i.hash === getAddress(chain.scenario.accounts.deployer))!;
  const sent = await chain.client.request<Hex>('eth_getTransactionCount', [chain.scenario.accounts.deployer, 'latest']);
  assert.ok(BigInt(deployer.transactions_count) >= BigInt(sent), 'the deployer sent (and received) transactions');
  const first = (await api.get('/api/v2/addresses')).body;
  assert.equal(first.exchange_rate, null);
  assert.equal(first.total_supply, null);
  assert.deepEqual(Object.keys(list.nextPageParams[0]!).sort(), ['fetched_coin_balance', 'hash', 'items_count']);
});

test('a page of top accounts that ends inside a tie of balances continues after its address', async () => {
  const all = (await collectList(api, '/api/v2/addresses')).items;
  const tie = all.filter((item) => item.coin_balance === '1000000000000000');
  assert.equal(tie.length, 40);
  const index = all.indexOf(tie[10]);
  const page = await api.get(`/api/v2/addresses?fetched_coin_balance=1000000000000000&hash=${tie[10].hash}&items_count=50`);
  assert.deepEqual(
    page.body.items.map((i: any) => i.hash),
    all.slice(index + 1, index + 51).map((i) => i.hash),
  );
});

test('bad top account parameters are a 422 naming them', async () => {
  const address = `0x${'ab'.repeat(20)}`;
  for (const [query, expected] of [
    ['sort=transactions_count&order=desc', ['/sort']],
    ['sort=balance&order=asc', ['/order']],
    ['sort=size', ['/sort']],
    ['order=sideways', ['/order']],
    ['fetched_coin_balance=5', ['/hash']],
    [`hash=${address}`, ['/fetched_coin_balance']],
    [`fetched_coin_balance=-5&hash=${address}`, ['/fetched_coin_balance']],
    ['fetched_coin_balance=5&hash=0xzz', ['/hash']],
  ] as const) {
    await assertInvalid(`/api/v2/addresses?${query}`, [...expected]);
  }
  const balance = await api.get('/api/v2/addresses?sort=balance&order=desc');
  assert.deepEqual(balance.body, (await api.get('/api/v2/addresses')).body);
});

// --- /api/v2/token-transfers

const newestFirst = (a: NodeTransfer, b: NodeTransfer) =>
  b.blockNumber - a.blockNumber || b.logIndex - a.logIndex || b.batchIndex - a.batchIndex;
const keyOfTransfer = (t: NodeTransfer) => `${t.blockNumber}:${t.logIndex}:${t.token}:${t.from}:${t.to}:${t.tokenId ?? ''}:${t.value}`;
const keyOfItem = (item: any) =>
  `${item.block_number}:${item.log_index}:${item.token.address_hash.toLowerCase()}:${item.from.hash.toLowerCase()}:${item.to.hash.toLowerCase()}:` +
  `${item.total?.token_id ?? ''}:${item.total?.value ?? 1}`;

test("the token transfers walk every transfer the node's logs hold, newest first", async () => {
  const transfers = await nodeTransfers(chain.client);
  const list = await collectList(api, '/api/v2/token-transfers');
  assertFullPages(list);
  assert.ok(list.pageSizes.length >= 3, `${list.pageSizes} pages`);
  assert.deepEqual(list.items.map(keyOfItem), [...transfers].sort(newestFirst).map(keyOfTransfer));
  assert.deepEqual(Object.keys(list.nextPageParams[0]!).sort(), ['batch_index', 'block_number', 'index']);
  for (const [type, types] of [
    ['ERC-1155', ['ERC-1155']],
    ['ERC-20,erc-721', ['ERC-20', 'ERC-721']],
    ['ERC-404', []],
  ] as const) {
    const filtered = await collectList(api, '/api/v2/token-transfers', { type });
    assertFullPages(filtered);
    const expected = transfers.filter((t) => (types as readonly string[]).includes(t.type)).sort(newestFirst);
    assert.deepEqual(filtered.items.map(keyOfItem), expected.map(keyOfTransfer), type);
  }
});

test('bad token transfer parameters are a 422 naming them', async () => {
  for (const [query, expected] of [
    ['type=ERC-7', ['/type']],
    ['block_number=5', ['/batch_index', '/index']],
    ['block_number=x&index=1&batch_index=0', ['/block_number']],
    ['block_number=5&index=-1&batch_index=0', ['/index']],
  ] as const) {
    await assertInvalid(`/api/v2/token-transfers?${query}`, [...expected]);
  }
});

// --- /api/v2/internal-transactions

interface ParityTrace {
  type: string;
  traceAddress: number[];
  action: { from?: string; address?: string; value?: Hex; balance?: Hex };
}

/**
 * Every frame of every transaction as the node's trace_transaction lists them (depth first), keyed as
 * the list keys them, the top-level call left out (it repeats the transaction; a top-level creation
 * stays); a self-destruct is from its contract and carries its balance.
 */
async function nodeInternalTransactions(): Promise<string[]> {
  const head = Number(BigInt(await chain.client.request<Hex>('eth_blockNumber', [])));
  const frames: string[] = [];
  for (let number = 0; number <= head; number++) {
    const block = await chain.client.request<{ transactions: Hex[] }>('eth_getBlockByNumber', [`0x${number.toString(16)}`, false]);
    for (const [transactionIndex, hash] of block.transactions.entries()) {
      const traces = await chain.client.request<ParityTrace[]>('trace_transaction', [hash]);
      for (const [index, trace] of traces.entries()) {
        if (index === 0 && trace.type === 'call') continue;
        const from = (trace.action.from ?? trace.action.address)!.toLowerCase();
        frames.push(`${number}:${transactionIndex}:${index}:${from}:${BigInt(trace.action.value ?? trace.action.balance ?? '0x0')}`);
      }
    }
  }
  return frames.reverse();
}

const keyOfInternal = (item: any) =>
  `${item.block_number}:${item.transaction_index}:${item.index}:${item.from.hash.toLowerCase()}:${item.value}`;

test("the internal transactions walk every frame of the node's traces but the top-level calls, newest first", async () => {
  const list = await collectList(api, '/api/v2/internal-transactions');
  assertFullPages(list);
  assert.ok(list.pageSizes.length >= 2, `${list.pageSizes} pages`);
  assert.deepEqual(list.items.map(keyOfInternal), await nodeInternalTransactions());
  assert.deepEqual(Object.keys(list.nextPageParams[0]!).sort(), ['block_number', 'index', 'items_count', 'transaction_index']);
});

test('the internal transactions of one transaction, as its own list gives them; none for an unknown one', async () => {
  const all = (await collectList(api, '/api/v2/internal-transactions')).items;
  const hash = all[0].transaction_hash;
  const own = await collectList(api, `/api/v2/transactions/${hash}/internal-transactions`);
  const filtered = await collectList(api, '/api/v2/internal-transactions', { transaction_hash: hash.toUpperCase().replace('0X', '0x') });
  assert.ok(own.items.length >= 40, 'a split of 40 recipients');
  assert.deepEqual(filtered, own);
  assert.deepEqual((await api.get(`/api/v2/internal-transactions?transaction_hash=0x${'12'.repeat(32)}`)).body, {
    items: [],
    next_page_params: null,
  });
});

test('bad internal transaction parameters are a 422 naming them', async () => {
  for (const [query, expected] of [
    ['transaction_hash=0x12', ['/transaction_hash']],
    ['block_number=5&index=3', ['/transaction_index']],
    ['block_number=5&index=3&transaction_index=+1', ['/transaction_index']],
    ['block_number=5&index=3&transaction_index=1&items_count=0', ['/items_count']],
  ] as const) {
    await assertInvalid(`/api/v2/internal-transactions?${query}`, [...expected]);
  }
});
