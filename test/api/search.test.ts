import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { pino } from 'pino';
import { type Address, type Hex, createPublicClient, createWalletClient, getAddress, http } from 'viem';
import { DemoERC20 } from '../../src/demo/artifacts.js';
import { startTokenMetadataStage } from '../../src/indexer/stages/token-metadata-stage.js';
import { type TestDatabase, createTestDatabase } from '../support/database.js';
import { type TokenChain, indexTokenChain, startTokenChain } from '../support/token-chain.js';
import { waitFor } from '../support/wait.js';
import { type RunningApi, assertFullPages, collectList, queryString, startApi } from './http.js';

/**
 * Search against the demo scenario on anvil, plus 60 more ERC-20 contracts of the demo's name ("Sextant
 * Demo Token", symbol SDT) minted to one, two or three holders each, so that a name's matches take two
 * pages and tie on name. Expectations come from the node and from the other endpoints, never from the
 * tables search reads.
 */

const extraTokens = 60;

let chain: TokenChain;
let db: TestDatabase;
let api: RunningApi;
/** The extra tokens, each with the number of holders it was minted to. */
const minted = new Map<Address, number>();

async function deployExtraTokens(): Promise<void> {
  const transport = http(chain.anvil.rpcUrl);
  const wallet = createWalletClient({ transport });
  const client = createPublicClient({ transport });
  const { deployer, payees } = chain.scenario.accounts;
  for (let i = 0; i < extraTokens; i++) {
    const deployment = await wallet.deployContract({ abi: DemoERC20.abi, bytecode: DemoERC20.bytecode, account: deployer, chain: null });
    const { contractAddress } = await client.waitForTransactionReceipt({ hash: deployment, pollingInterval: 5 });
    const token = getAddress(contractAddress!);
    const holders = payees.slice(0, 1 + (i % 3));
    for (const holder of holders) {
      const mint = await wallet.writeContract({
        address: token,
        abi: DemoERC20.abi,
        functionName: 'mint',
        args: [holder, 10n ** 18n],
        account: deployer,
        chain: null,
      });
      await client.waitForTransactionReceipt({ hash: mint, pollingInterval: 5 });
    }
    minted.set(token, holders.length);
  }
}

before(async () => {
  chain = await startTokenChain();
  assert.ok(chain.scenario.accounts.payees.length >= 3, 'the scenario has three payees to mint to');
  await deployExtraTokens();
  db = await createTestDatabase();
  await indexTokenChain(chain, db);
  const stage = startTokenMetadataStage({
    pool: db.pool,
    client: chain.client,
    logger: pino({ level: 'silent' }),
    batchSize: 20,
    pollIntervalMs: 20,
  });
  try {
    await waitFor(
      async () => (await db.pool.query('SELECT 1 FROM tokens WHERE metadata_fetched_at IS NULL LIMIT 1')).rows.length === 0,
      'every token contract is read',
      { intervalMs: 20 },
    );
  } finally {
    await stage.stop();
  }
  api = await startApi(db.pool);
});
after(async () => {
  await api?.close();
  await db?.drop();
  await chain?.anvil.stop();
});

async function ok(path: string): Promise<any> {
  const response = await api.get(path);
  assert.equal(response.status, 200, `${path}: ${response.text}`);
  return response.body;
}

const redirect = (q: string) => ok(`/api/v2/search/check-redirect${queryString({ q })}`);
const quick = (q: string) => ok(`/api/v2/search/quick${queryString({ q })}`);

interface NodeBlock {
  hash: Hex;
  number: Hex;
  timestamp: Hex;
}

const nodeBlock = (number: number) => chain.client.request<NodeBlock>('eth_getBlockByNumber', [`0x${number.toString(16)}`, false]);
const isoSeconds = (timestamp: Hex) => new Date(Number(timestamp) * 1000).toISOString().replace('.000Z', '.000000Z');

test('a transaction by its hash, in either case: its page, its block time, and check-redirect to it', async () => {
  const { hash } = chain.scenario.transactions.find((t) => t.label === 'ERC-20 mint to alice')!;
  const receipt = await chain.client.request<{ blockNumber: Hex }>('eth_getTransactionReceipt', [hash]);
  const block = await nodeBlock(Number(receipt.blockNumber));
  const expected = { priority: 0, timestamp: isoSeconds(block.timestamp), transaction_hash: hash, type: 'transaction', url: `/tx/${hash}` };
  for (const q of [hash, hash.toUpperCase().replace('0X', '0x'), ` ${hash} `]) {
    assert.deepEqual((await ok(`/api/v2/search${queryString({ q })}`)).items, [expected], q);
    assert.deepEqual(await quick(q), [expected], q);
    assert.deepEqual(await redirect(q), { parameter: hash, redirect: true, type: 'transaction' }, q);
  }
  // The transaction page agrees on the time.
  assert.equal((await ok(`/api/v2/transactions/${hash}`)).timestamp, expected.timestamp);
});

test('a block by its number and by its hash: the node’s block, and check-redirect to it by hash', async () => {
  for (const number of [0, 5, 123]) {
    const block = await nodeBlock(number);
    const expected = {
      block_hash: block.hash,
      block_number: number,
      block_type: 'block',
      priority: 3,
      timestamp: isoSeconds(block.timestamp),
      type: 'block',
      url: `/block/${block.hash}`,
    };
    for (const q of [String(number), block.hash]) {
      const body = await ok(`/api/v2/search${queryString({ q })}`);
      assert.deepEqual(body, { items: [expected], next_page_params: null }, q);
      assert.deepEqual(await redirect(q), { parameter: block.hash, redirect: true, type: 'block' }, q);
    }
    // Quick search looks for nothing shorter than three characters, as Blockscout's, but for a block number.
    assert.deepEqual(await quick(String(number)), [expected]);
    assert.deepEqual(await quick(` ${number} `), [expected]);
    assert.deepEqual(await quick(block.hash), [expected]);
  }
  const head = Number(await chain.client.request<Hex>('eth_blockNumber', []));
  for (const q of [String(head + 1), `0x${'ab'.repeat(32)}`]) {
    assert.deepEqual(await ok(`/api/v2/search${queryString({ q })}`), { items: [], next_page_params: null }, q);
    assert.deepEqual(await redirect(q), { parameter: null, redirect: false, type: null }, q);
  }
});

test('an address: found once indexed, checksummed; a token contract also as its token; check-redirect to any address', async () => {
  const { alice } = chain.scenario.accounts;
  const expectedAddress = (address: Address) => ({
    address_hash: getAddress(address),
    certified: false,
    ens_info: null,
    is_smart_contract_verified: false,
    name: null,
    priority: 0,
    reputation: 'ok',
    type: 'address',
    url: `/address/${getAddress(address)}`,
  });
  for (const q of [alice.toLowerCase(), alice.slice(2).toUpperCase()]) {
    assert.deepEqual((await ok(`/api/v2/search${queryString({ q })}`)).items, [expectedAddress(alice)], q);
    assert.deepEqual(await quick(q), [expectedAddress(alice)], q);
    assert.deepEqual(await redirect(q), { parameter: getAddress(alice), redirect: true, type: 'address' }, q);
  }

  const { erc721 } = chain.scenario.contracts;
  const token = await ok(`/api/v2/tokens/${erc721}`);
  const items = (await ok(`/api/v2/search${queryString({ q: erc721 })}`)).items;
  assert.deepEqual(items, [
    {
      address_hash: getAddress(erc721),
      address_url: `/address/${getAddress(erc721)}`,
      certified: false,
      circulating_market_cap: null,
      exchange_rate: null,
      icon_url: null,
      is_smart_contract_verified: false,
      is_verified_via_admin_panel: false,
      name: token.name,
      priority: 2,
      reputation: 'ok',
      symbol: token.symbol,
      token_type: 'ERC-721',
      token_url: `/token/${getAddress(erc721)}`,
      total_supply: token.total_supply,
      type: 'token',
    },
    // Named by its token, as Blockscout names an address by its token (its address names).
    { ...expectedAddress(erc721), name: token.name },
  ]);

  // An address nothing indexed mentions is no search result, but its page exists, so check-redirect leads there.
  const unknown = `0x${'5e'.repeat(20)}`;
  assert.deepEqual((await ok(`/api/v2/search${queryString({ q: unknown })}`)).items, []);
  assert.deepEqual(await redirect(unknown), { parameter: getAddress(unknown), redirect: true, type: 'address' });
});

/** Every page of a search, as the client follows next_page_params. */
const allResults = (q: string) => collectList(api, '/api/v2/search', { q });

/** The expected order of tokens: most holders first (as each token's page counts them), then name, then address. */
async function rankedTokens(addresses: Address[]): Promise<string[]> {
  // One at a time: all at once would queue more requests than the API lets wait on its four connections.
  const tokens = [];
  for (const address of addresses) tokens.push({ address, ...(await ok(`/api/v2/tokens/${address}`)) });
  tokens.sort(
    (a, b) =>
      Number(b.holders_count) - Number(a.holders_count) ||
      (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) ||
      (a.address.toLowerCase() < b.address.toLowerCase() ? -1 : 1),
  );
  return tokens.map((t) => getAddress(t.address));
}

test('tokens by a prefix of their name, in any case: ranked by holders, then name, then address, paged without gaps', async () => {
  const { erc20, erc721 } = chain.scenario.contracts;
  const sdt = [erc20, ...minted.keys()];
  for (const q of ['Sextant Demo Token', 'sextant demo tok', 'SEXT DEM TOKEN']) {
    const list = await allResults(q);
    assertFullPages(list);
    assert.deepEqual(list.pageSizes, [50, sdt.length - 50], q);
    assert.deepEqual(
      list.items.map((i) => i.address_hash),
      await rankedTokens(sdt),
      q,
    );
    assert.ok(
      list.items.every((i) => i.type === 'token' && i.name === 'Sextant Demo Token' && i.symbol === 'SDT'),
      q,
    );
    assert.deepEqual(list.nextPageParams[0]!.q, q);
    assert.equal(list.nextPageParams[0]!.next_page_params_type, 'search');
  }
  // The extra tokens' holder counts are the mints'.
  for (const [token, holders] of minted) assert.equal((await ok(`/api/v2/tokens/${token}`)).holders_count, String(holders));

  // A prefix of the words the two named demo tokens share finds both.
  const both = await allResults('sextant dem');
  assert.deepEqual(both.items.map((i) => i.address_hash).sort(), [...sdt, erc721].map((a) => getAddress(a)).sort());
  assert.deepEqual(
    both.items.map((i) => i.address_hash),
    await rankedTokens([...sdt, erc721]),
  );
});

test('tokens by their symbol in another case; check-redirect to a token whose name or symbol is the query, if only one is', async () => {
  const { erc721 } = chain.scenario.contracts;
  const nft = await ok(`/api/v2/tokens/${erc721}`);
  assert.equal(nft.symbol, 'SNFT');
  for (const q of ['snft', 'sNfT', 'SNF']) {
    assert.deepEqual(
      (await ok(`/api/v2/search${queryString({ q })}`)).items.map((i: any) => [i.address_hash, i.symbol]),
      [[getAddress(erc721), 'SNFT']],
      q,
    );
    assert.deepEqual(
      (await quick(q)).map((i: any) => i.address_hash),
      [getAddress(erc721)],
      q,
    );
  }
  for (const q of ['snft', 'sextant demo nft']) {
    assert.deepEqual(await redirect(q), { parameter: getAddress(erc721), redirect: true, type: 'address' }, q);
  }
  // A prefix is no redirect, nor a symbol 61 tokens share.
  for (const q of ['snf', 'sdt']) assert.deepEqual(await redirect(q), { parameter: null, redirect: false, type: null }, q);
  assert.equal((await allResults('sdt')).items.length, minted.size + 1);
});

test('quick search: at most 50 matches, unpaged', async () => {
  const found = await quick('sextant');
  assert.equal(found.length, 50);
  assert.deepEqual(
    found.map((i: any) => i.address_hash),
    (await allResults('sextant')).items.slice(0, 50).map((i) => i.address_hash),
  );
});

test('an ENS-like name, a query of no words, or of under three characters finds nothing and leads nowhere', async () => {
  for (const q of ['vitalik.eth', 'foo.eth', '%%%', '--', 'zz', '日本語']) {
    assert.deepEqual(await ok(`/api/v2/search${queryString({ q })}`), { items: [], next_page_params: null }, q);
    assert.deepEqual(await quick(q), [], q);
    assert.deepEqual(await redirect(q), { parameter: null, redirect: false, type: null }, q);
  }
});

test('an empty, blank, missing, repeated or over-long q is a 422 naming q; so is a malformed or partial token keyset', async () => {
  for (const endpoint of ['/api/v2/search', '/api/v2/search/quick', '/api/v2/search/check-redirect']) {
    for (const query of ['', '?q=', '?q=%20%20', '?q=a&q=b', `?q=${'a'.repeat(257)}`]) {
      const response = await api.get(endpoint + query);
      assert.equal(response.status, 422, `${endpoint}${query}`);
      assert.deepEqual(
        response.body.errors.map((e: any) => e.source.pointer),
        ['/q'],
        `${endpoint}${query}`,
      );
    }
    assert.equal((await api.get(`${endpoint}?q=${'a'.repeat(256)}`)).status, 200);
  }
  const first = await ok(`/api/v2/search${queryString({ q: 'sextant' })}`);
  const next = first.next_page_params as Record<string, string>;
  for (const [member, value] of [
    ['token[holder_count]', '1e3'],
    ['token[is_name_null]', 'maybe'],
    ['token[address_hash]', '0x12'],
  ] as const) {
    const response = await api.get(`/api/v2/search${queryString({ ...next, [member]: value })}`);
    assert.equal(response.status, 422, member);
    assert.deepEqual(
      response.body.errors.map((e: any) => e.source.pointer),
      [`/${member}`],
    );
  }
  const { 'token[name]': _name, ...partial } = next;
  const response = await api.get(`/api/v2/search${queryString(partial)}`);
  assert.equal(response.status, 422);
  assert.deepEqual(
    response.body.errors.map((e: any) => e.source.pointer),
    ['/token[name]'],
  );
});
