import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { createRetry } from '../../src/indexer/retry.js';
import { startOffchainSources } from '../../src/app/offchain-sources.js';
import type { Database } from '../../src/app/database.js';
import { Resources } from '../../src/app/resources.js';
import { parseConfig, rawSettingsFromEnv } from '../../src/config.js';
import type { BackgroundLoop } from '../../src/indexer/stages/background-loop.js';
import { startPriceStage } from '../../src/indexer/stages/price-stage.js';
import { startTokenMetadataStage } from '../../src/indexer/stages/token-metadata-stage.js';
import { startTokenListStage } from '../../src/indexer/stages/token-list-stage.js';
import { DemoERC20 } from '../../src/demo/artifacts.js';
import { type TestDatabase, createTestDatabase } from '../support/database.js';
import { storeContractCodes, storeVerifiedContract } from '../support/decoding-chain.js';
import { type TokenChain, indexTokenChain, startTokenChain } from '../support/token-chain.js';
import { getOk } from '../support/http-client.js';
import { type RunningApi, startApi } from './http.js';

/**
 * Prices and token lists, end to end: a local HTTP server answers as CoinGecko's API does (its
 * documented response shapes, recorded in test/fixtures/coingecko), the price stage fetches from it
 * into PostgreSQL, and the API serves the figures on /stats, tokens, transactions and addresses; a
 * failing source keeps the last values, backs off and says so in /health; a token list from a file
 * and from a URL gives icons and the names a contract does not answer.
 */

const logger = pino({ level: 'silent' });
/** As `start` retries its writes at start: here until the test file ends. */
const retry = createRetry({ logger, signal: new AbortController().signal });
const coinFixture = JSON.parse(readFileSync(new URL('../fixtures/coingecko/coin-ethereum.json', import.meta.url), 'utf8'));
const marketChartFixture = JSON.parse(readFileSync(new URL('../fixtures/coingecko/market-chart-ethereum.json', import.meta.url), 'utf8'));
/** A day the market chart's answer gives a price but no market cap for. */
const dayWithoutMarketCap = Date.UTC(2026, 10, 26);
const platform = 'sextant-anvil';
const apiKey = 'test-key-123';
const tokenImage = 'https://coin-images.coingecko.com/coins/images/9956/large/dai.png?1696509996';
const listLogo = 'ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi/dmo.png';

interface Hit {
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  at: number;
}

let chain: TokenChain;
let db: TestDatabase;
let api: RunningApi;
let server: Server;
let base: string;
let failing = false;
let hits: Hit[] = [];
let tokenList: unknown;
let listDir: string;
const stages: BackgroundLoop[] = [];

/** The coins CoinGecko lists with their platforms: the demo ERC-20 on this chain's platform, among others. */
const coinsList = () => [
  { id: 'ethereum', symbol: 'eth', name: 'Ethereum', platforms: {} },
  {
    id: 'demo-dollar',
    symbol: 'dmo',
    name: 'Demo Dollar',
    platforms: { [platform]: chain.scenario.contracts.erc20.toLowerCase(), ethereum: '0x6b175474e89094c44da98b954eedeac495271d0f' },
  },
  { id: 'elsewhere-token', symbol: 'elt', name: 'Elsewhere', platforms: { 'polygon-pos': chain.scenario.contracts.erc721.toLowerCase() } },
  { id: 'not-indexed', symbol: 'nix', name: 'Not Indexed', platforms: { [platform]: '0x00000000000000000000000000000000000000aa' } },
  { id: 'no-address', symbol: 'nad', name: 'No Address', platforms: { [platform]: '' } },
];

/** /coins/markets's entry for a coin, as CoinGecko documents it. */
const marketEntry = (id: string) => ({
  id,
  symbol: 'dmo',
  name: 'Demo Dollar',
  image: tokenImage,
  current_price: 1.002,
  market_cap: 5321440123,
  market_cap_rank: 24,
  fully_diluted_valuation: 5321440123,
  total_volume: 123456789.12,
  high_24h: 1.004,
  low_24h: 0.998,
  price_change_24h: 0.0011,
  price_change_percentage_24h: 0.1108,
  market_cap_change_24h: 1234567,
  market_cap_change_percentage_24h: 0.0232,
  circulating_supply: 5310000000,
  total_supply: 5310000000,
  max_supply: null,
  ath: 1.22,
  ath_change_percentage: -17.9,
  ath_date: '2020-03-13T03:02:50.373Z',
  atl: 0.88196,
  atl_change_percentage: 13.6,
  atl_date: '2023-03-11T07:50:50.514Z',
  roi: null,
  last_updated: '2026-11-27T03:40:02.781Z',
});

function answer(path: string, query: URLSearchParams): unknown {
  if (path === '/api/v3/coins/ethereum') return coinFixture;
  if (path === '/api/v3/coins/ethereum/market_chart' && query.get('vs_currency') === 'usd' && query.get('interval') === 'daily') {
    const marketCaps = (marketChartFixture.market_caps as [number, number][]).filter(([time]) => time !== dayWithoutMarketCap);
    return { ...marketChartFixture, market_caps: marketCaps };
  }
  if (path === '/api/v3/coins/list' && query.get('include_platform') === 'true') return coinsList();
  if (path === '/api/v3/coins/markets' && query.get('vs_currency') === 'usd') {
    return (query.get('ids') ?? '')
      .split(',')
      .filter((id) => id === 'demo-dollar' || id === 'not-indexed')
      .map(marketEntry);
  }
  if (path === '/lists/tokens.json') return tokenList;
  return undefined;
}

before(async () => {
  chain = await startTokenChain();
  db = await createTestDatabase();
  await indexTokenChain(chain, db);
  // The token contracts' own names, as the indexer's token stage reads them.
  const tokenStage = startTokenMetadataStage({ pool: db.pool, client: chain.client, logger, batchSize: 10, pollIntervalMs: 20 });
  await tokenStage.drained();
  await tokenStage.stop();
  // The ERC-20 verified, so that the verified contracts list shows its market cap.
  const head = BigInt(await chain.client.request<string>('eth_blockNumber', []));
  const codeHashes = await storeContractCodes(db.pool, chain.client, head);
  await storeVerifiedContract(db.pool, erc20(), codeHashes.get(erc20().toLowerCase())!, DemoERC20.abi);
  server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://x');
    hits.push({ path: url.pathname, query: url.searchParams, headers: request.headers, at: Date.now() });
    if (failing && url.pathname.startsWith('/api/v3/')) return void response.writeHead(503).end('{"status":{"error_code":503}}');
    const body = answer(url.pathname, url.searchParams);
    if (body === undefined) return void response.writeHead(404).end('{"error":"coin not found"}');
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  api = await startApi(db.pool);
  listDir = await mkdtemp(join(tmpdir(), 'sextant-token-list-'));
});

after(async () => {
  for (const stage of stages) await stage.stop();
  await api?.close();
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  await db?.drop();
  await chain?.anvil.stop();
  if (listDir !== undefined) await rm(listDir, { recursive: true, force: true });
});

const erc20 = () => chain.scenario.contracts.erc20;
const firstTransaction = () => chain.scenario.transactions[0]!.hash;

async function marketFields() {
  const [stats, token, contract, verified, transaction, address, transactions, market] = await Promise.all([
    getOk(api, '/api/v2/stats'),
    getOk(api, `/api/v2/tokens/${erc20()}`),
    getOk(api, `/api/v2/smart-contracts/${erc20()}`),
    getOk(api, '/api/v2/smart-contracts'),
    getOk(api, `/api/v2/transactions/${firstTransaction()}`),
    getOk(api, `/api/v2/addresses/${chain.scenario.accounts.alice}`),
    getOk(api, '/api/v2/transactions'),
    getOk(api, '/api/v2/stats/charts/market'),
  ]);
  return {
    stats: {
      coin_image: stats.coin_image,
      coin_price: stats.coin_price,
      coin_price_change_percentage: stats.coin_price_change_percentage,
      market_cap: stats.market_cap,
    },
    token: {
      exchange_rate: token.exchange_rate,
      circulating_market_cap: token.circulating_market_cap,
      volume_24h: token.volume_24h,
      icon_url: token.icon_url,
    },
    contract: contract.market_cap,
    verified: verified.items.map((item: { market_cap: unknown }) => item.market_cap),
    transaction: transaction.exchange_rate,
    listed: [...new Set(transactions.items.map((t: { exchange_rate: unknown }) => t.exchange_rate))],
    address: address.exchange_rate,
    market,
  };
}

const nulls = {
  stats: { coin_image: null, coin_price: null, coin_price_change_percentage: null, market_cap: null },
  token: { exchange_rate: null, circulating_market_cap: null, volume_24h: null, icon_url: null },
  contract: null,
  verified: [null],
  transaction: null,
  listed: [null],
  address: null,
  market: { available_supply: 0, chart_data: [] },
};

const priced = {
  stats: {
    coin_image: 'https://coin-images.coingecko.com/coins/images/279/small/ethereum.png?1696501628',
    coin_price: '3120.45',
    // -1.21906, rounded up to two decimals as Blockscout rounds.
    coin_price_change_percentage: -1.21,
    market_cap: '375083520142',
  },
  token: { exchange_rate: '1.002', circulating_market_cap: '5321440123', volume_24h: '123456789.12', icon_url: tokenImage },
  contract: '5321440123',
  verified: ['5321440123'],
  transaction: '3120.45',
  listed: ['3120.45'],
  address: '3120.45',
  // Newest first: today's price the current one; a day without a market cap given circulating supply × price.
  market: {
    available_supply: '120204327.1',
    chart_data: [
      { date: '2026-11-27', closing_price: '3120.45', market_cap: '374900000000' },
      { date: '2026-11-26', closing_price: '3101.9', market_cap: '372861802231.49' },
      { date: '2026-11-25', closing_price: '3050.1', market_cap: '366600000000' },
      { date: '2026-11-24', closing_price: '2980.12', market_cap: '358200000000' },
    ],
  },
};

const sourcesOnHealth = async () => (await getOk(api, '/health')).offchain_sources;

test('without a price source every price field is null, and /health lists no source', async () => {
  assert.deepEqual(await marketFields(), nulls);
  assert.deepEqual(await sourcesOnHealth(), []);
});

test("the price stage reads CoinGecko's coin and the indexed tokens of the chain's platform, and the API serves them", async () => {
  hits = [];
  const stage = startPriceStage({
    pool: db.pool,
    logger,
    coinGecko: { baseUrl: `${base}/api/v3`, apiKey, timeoutMs: 5_000 },
    coinId: 'ethereum',
    platformId: platform,
    intervalMs: 300,
    backoff: { initialMs: 200, maxMs: 1_600 },
  });
  stages.push(stage);
  await stage.drained();
  assert.deepEqual(await marketFields(), priced);

  // The key goes in a header (a Pro key: the stand-in is not api.coingecko.com), never in the URL.
  assert.ok(hits.every((h) => h.headers['x-cg-pro-api-key'] === apiKey && !h.query.toString().includes(apiKey)));
  const coin = hits.find((h) => h.path === '/api/v3/coins/ethereum')!;
  assert.equal(coin.query.get('market_data'), 'true');
  assert.equal(coin.query.get('tickers'), 'false');
  // Only the coins of indexed tokens are asked for.
  const asked = hits.filter((h) => h.path === '/api/v3/coins/markets').map((h) => h.query.get('ids'));
  assert.deepEqual([...new Set(asked)], ['demo-dollar']);

  // Each speed's fee for a plain transfer, in dollars to the cent.
  const average = (await api.get('/api/v2/stats', { 'updated-gas-oracle': 'true' })).body.gas_prices.average;
  assert.equal(average.fiat_price, ((average.price * 21_000 * 3120.45) / 1e9).toFixed(2));
  const [health] = await sourcesOnHealth();
  assert.equal(health.name, 'prices');
  assert.equal(health.available, true);
  assert.equal(health.consecutive_failures, 0);
  assert.ok(health.last_success_at !== null);

  // A source that fails keeps the last values, backs off (each wait longer than the one two before),
  // and says so in /health; once it answers again, it is available and fresh.
  hits = [];
  failing = true;
  while (hits.filter((h) => h.path === '/api/v3/coins/ethereum').length < 5) await stage.drained();
  assert.deepEqual(await marketFields(), priced);
  const stale = (await sourcesOnHealth())[0];
  assert.equal(stale.available, false);
  assert.ok(stale.consecutive_failures >= 4, JSON.stringify(stale));
  assert.match(stale.last_error, /\/api\/v3\/coins\/ethereum answered HTTP 503/);
  const times = hits.filter((h) => h.path === '/api/v3/coins/ethereum').map((h) => h.at);
  const gaps = times.slice(1).map((t, i) => t - times[i]!);
  // Waits of 100-200, 200-400, 400-800 and 800-1,600 ms, each plus the time a failure takes to record.
  assert.ok(gaps[0]! >= 95, `the first retry waited ${gaps[0]} ms`);
  assert.ok(gaps[3]! > gaps[0]! + 400, `waits between failing fetches: ${gaps.join(', ')} ms`);

  failing = false;
  await stage.drained();
  await stage.drained();
  const recovered = (await sourcesOnHealth())[0];
  assert.equal(recovered.available, true);
  assert.equal(recovered.consecutive_failures, 0);
  assert.match(recovered.last_error, /503/, 'the last failure stays on record');
  assert.deepEqual(await marketFields(), priced);
  await stage.stop();
});

test("a token list, from a file and from a URL: this chain's entries give icons and the names a contract does not answer", async () => {
  const { erc1155, erc20: demoErc20 } = chain.scenario.contracts;
  const before_ = await getOk(api, `/api/v2/tokens/${erc1155}`);
  assert.equal(before_.name, null, 'the demo ERC-1155 answers no name');
  tokenList = {
    name: 'Sextant test list',
    timestamp: '2026-11-27T00:00:00.000Z',
    version: { major: 1, minor: 0, patch: 0 },
    keywords: ['test'],
    tokens: [
      {
        chainId: chain.scenario.chainId,
        address: erc1155,
        name: 'Listed Multi Token',
        symbol: 'LMT',
        decimals: 0,
        logoURI: 'https://tokens.example/lmt.png',
      },
      { chainId: chain.scenario.chainId, address: demoErc20, name: 'Not This Name', symbol: 'NTN', decimals: 18, logoURI: listLogo },
      {
        chainId: 1,
        address: chain.scenario.contracts.erc721,
        name: 'Mainnet Only',
        symbol: 'MO',
        decimals: 0,
        logoURI: 'https://tokens.example/mo.png',
      },
      { chainId: chain.scenario.chainId, address: 'not an address', name: 'Broken', symbol: 'B', decimals: 0 },
    ],
  };
  const file = join(listDir, 'tokens.json');
  await writeFile(file, JSON.stringify(tokenList));
  for (const source of [file, `${base}/lists/tokens.json`]) {
    const stage = startTokenListStage({
      pool: db.pool,
      logger,
      source,
      chainId: chain.scenario.chainId,
      intervalMs: 60_000,
      backoff: { initialMs: 100, maxMs: 800 },
    });
    stages.push(stage);
    await stage.drained();
    await stage.stop();
    const multi = await getOk(api, `/api/v2/tokens/${erc1155}`);
    assert.deepEqual([multi.name, multi.symbol, multi.icon_url], ['Listed Multi Token', 'LMT', 'https://tokens.example/lmt.png'], source);
    const demo = await getOk(api, `/api/v2/tokens/${demoErc20}`);
    // The contract's own name stays; the list's icon comes before the price source's.
    assert.notEqual(demo.name, 'Not This Name');
    assert.equal(demo.icon_url, listLogo);
    assert.equal(demo.exchange_rate, '1.002');
    const other = await getOk(api, `/api/v2/tokens/${chain.scenario.contracts.erc721}`);
    assert.equal(other.icon_url, null, 'an entry of another chain is left out');
    const search = await getOk(api, `/api/v2/search?q=${demoErc20}`);
    const found = search.items.find((i: { type: string }) => i.type === 'token');
    assert.deepEqual([found.icon_url, found.exchange_rate], [listLogo, '1.002']);
  }
  const list = (await sourcesOnHealth()).find((s: { name: string }) => s.name === 'token_list');
  assert.equal(list.available, true);

  // A list that no longer parses keeps the entries read before, and says so.
  await writeFile(file, '{"tokens": ');
  const broken = startTokenListStage({
    pool: db.pool,
    logger,
    source: file,
    chainId: chain.scenario.chainId,
    intervalMs: 60_000,
    backoff: { initialMs: 60_000, maxMs: 60_000 },
  });
  stages.push(broken);
  await broken.drained();
  await broken.stop();
  const failed = (await sourcesOnHealth()).find((s: { name: string }) => s.name === 'token_list');
  assert.deepEqual([failed.available, failed.consecutive_failures], [false, 1]);
  assert.match(failed.last_error, /is not JSON/);
  assert.equal((await getOk(api, `/api/v2/tokens/${erc1155}`)).name, 'Listed Multi Token');
});

test('an indexer started without a source forgets what an earlier one stored: every field is null again', async () => {
  const resources = new Resources();
  const database = { pool: db.pool } as Database;
  const config = parseConfig(rawSettingsFromEnv({}));
  assert.deepEqual(await startOffchainSources(config, logger, database, BigInt(chain.scenario.chainId), resources, retry), []);
  await resources.closeAll();
  assert.deepEqual(await marketFields(), nulls);
  assert.deepEqual(await sourcesOnHealth(), []);
  assert.equal((await getOk(api, `/api/v2/tokens/${chain.scenario.contracts.erc1155}`)).name, null);
});

test('configured through the settings, the sources start, fetch, and report on /health', async () => {
  const resources = new Resources();
  const config = parseConfig(
    rawSettingsFromEnv({
      EXCHANGE_RATES_COINGECKO_COIN_ID: 'ethereum',
      EXCHANGE_RATES_COINGECKO_BASE_URL: `${base}/api/v3`,
      TOKEN_LIST_URL: `${base}/lists/tokens.json`,
    }),
  );
  const started = await startOffchainSources(
    config,
    logger,
    { pool: db.pool } as Database,
    BigInt(chain.scenario.chainId),
    resources,
    retry,
  );
  assert.equal(started.length, 2);
  await Promise.all(started.map((stage) => stage.drained()));
  await resources.closeAll();
  const fields = await marketFields();
  assert.deepEqual(fields.stats, priced.stats);
  // No platform configured: no token prices, the list's icon only.
  assert.deepEqual(fields.token, { ...nulls.token, icon_url: listLogo });
  assert.deepEqual(
    (await sourcesOnHealth()).map((s: { name: string; available: boolean }) => [s.name, s.available]),
    [
      ['prices', true],
      ['token_list', true],
    ],
  );
});
