import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ChainSubjects, collectEndpointSnapshot } from '../support/endpoint-snapshot.js';
import { type ApiClient, apiClient, assertFullPages, collectList, getOk } from '../support/http-client.js';
import { assertEveryEndpointValidated } from '../support/openapi-conformance.js';
import { servedPaths } from '../support/served-paths.js';
import { runSextant, startSextant, type RunningSextant } from '../support/sextant-process.js';
import { waitFor } from '../support/wait.js';

// `sextant start` with nothing configured, as `npm start` runs it: the demo chain, indexed into the
// embedded PostgreSQL, served over HTTP. Only the data directory is a temporary one.

let dataDir: string;
let sextant: RunningSextant;
let startedIn: number;
let api: ApiClient;

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'sextant-demo-'));
  // Run as root, the embedded server runs as the postgres OS user, which must reach the directory.
  chmodSync(dataDir, 0o755);
  const started = Date.now();
  // A still chain: the lists and the snapshot below are of the scenario alone (test/e2e/demo-live.test.ts has it moving).
  sextant = await startSextant({ SEXTANT_DATA_DIR: dataDir, SEXTANT_DEMO_BLOCK_INTERVAL_MS: '0' });
  startedIn = Date.now() - started;
  api = apiClient(sextant.baseUrl);
});
after(async () => {
  assert.equal(await sextant.stop(), 0, 'a clean exit on SIGTERM');
  rmSync(dataDir, { recursive: true, force: true });
});

/** Every item of a list, whose pages but the last are full. */
async function allPages(path: string, filters: Record<string, string> = {}): Promise<any[]> {
  const list = await collectList(api, path, filters);
  assertFullPages(list);
  return list.items;
}

test('serves the demo chain within a minute of starting', () => {
  assert.ok(startedIn < 60_000, `started in ${startedIn} ms`);
  assert.match(sextant.output(), /api\/v2\/transactions/, 'prints URLs to try');
});

test('E2 lists every demo transaction once, over several pages', async () => {
  const items = await allPages('/api/v2/transactions');
  assert.ok(items.length > 60, `${items.length} transactions`);
  assert.equal(new Set(items.map((t) => t.hash)).size, items.length);
  const statuses = new Set(items.map((t) => t.status));
  assert.deepEqual([...statuses].sort(), ['error', 'ok']);
  assert.deepEqual([...new Set(items.map((t) => t.type))].sort(), [0, 1, 2]);
  const creations = await allPages('/api/v2/transactions', { type: 'contract_creation' });
  assert.ok(creations.length >= 4, `${creations.length} contract creations`);
  assert.deepEqual(
    creations
      .filter((t) => !(t.to === null && t.created_contract !== null))
      .map((t) => ({ hash: t.hash, to: t.to, created_contract: t.created_contract })),
    [],
    'creations with a to, or without a created contract',
  );
  const calls = await allPages('/api/v2/transactions', { type: 'contract_call' });
  assert.ok(calls.length > 10, `${calls.length} contract calls`);
  assert.deepEqual(
    calls.filter((t) => t.to.is_contract !== true).map((t) => ({ hash: t.hash, to: t.to })),
    [],
    'contract calls to no contract',
  );
});

test('E5 lists the blocks of the demo chain under their validator, whose address page shows them', async () => {
  const [newest] = (await getOk(api, '/api/v2/transactions')).items;
  const withdrawals = await getOk(api, `/api/v2/blocks/${newest.block_number}/withdrawals`);
  assert.deepEqual(withdrawals, { items: [], next_page_params: null });
  const validator: string = (await getOk(api, `/api/v2/blocks/${newest.block_number}`)).miner.hash;
  assert.notEqual(validator, '0x0000000000000000000000000000000000000000', 'the demo names a validator');
  // Every block but the genesis, which anvil credits to the zero address.
  const validated = await allPages(`/api/v2/addresses/${validator}/blocks-validated`);
  assert.deepEqual(
    validated.map((block) => block.height),
    Array.from({ length: newest.block_number }, (_, i) => newest.block_number - i),
  );
  const genesis = await allPages('/api/v2/addresses/0x0000000000000000000000000000000000000000/blocks-validated');
  assert.deepEqual(
    genesis.map((block) => block.height),
    [0],
  );
  assert.equal((await getOk(api, `/api/v2/addresses/${validator}`)).has_validated_blocks, true);
  assert.equal((await getOk(api, `/api/v2/addresses/${validator}/tabs-counters`)).validations_count, Math.min(51, validated.length));
  assert.equal((await getOk(api, `/api/v2/addresses/${validator}/counters`)).validations_count, String(validated.length));
});

test('E6 and E7 serve the traces of the demo chain once the trace stage has caught up', async () => {
  let items: any[] = [];
  const untraced = () => items.filter((t) => t.has_error_in_internal_transactions === null);
  await waitFor(
    async () => {
      items = await allPages('/api/v2/transactions');
      return untraced().length === 0;
    },
    () => `every transaction is traced (${untraced().length} of ${items.length} not yet)`,
    { timeoutMs: 30_000, intervalMs: 200 },
  );
  const traces: any[][] = await Promise.all(items.map((t) => getOk(api, `/api/v2/transactions/${t.hash}/raw-trace`)));
  assert.deepEqual(
    items.filter((_, i) => !(traces[i]!.length >= 1)).map((t) => t.hash),
    [],
    'transactions with an empty raw trace',
  );
  assert.deepEqual([...new Set(traces.flat().map((frame) => frame.type))].sort(), ['call', 'create', 'suicide']);
  const nested = traces.find((trace) => trace.some((frame) => frame.traceAddress.length > 1));
  assert.ok(nested, 'a call nested two deep');
  const caller: string = nested[0].action.to;
  const internal = await allPages(`/api/v2/addresses/${caller}/internal-transactions`);
  const involves = (info: any) => info !== null && info.hash.toLowerCase() === caller;
  assert.ok(internal.length > 1, `${internal.length} internal transactions of ${caller}`);
  assert.deepEqual(
    internal.filter((i) => !(involves(i.from) || involves(i.to))).map((i) => ({ from: i.from, to: i.to })),
    [],
    `internal transactions not involving ${caller}`,
  );
  const sent = await allPages(`/api/v2/addresses/${caller}/internal-transactions`, { filter: 'from' });
  assert.ok(
    sent.some((i) => BigInt(i.value) > 0n) && sent.some((i) => i.created_contract !== null),
    `value transfers and creations among ${JSON.stringify(sent.map((i) => ({ value: i.value, created_contract: i.created_contract })))}`,
  );
});

test('E8, E1, E3 and E4 serve the demo tokens', async () => {
  const senders = new Set((await allPages('/api/v2/transactions', { type: 'token_transfer' })).map((t) => t.from.hash));
  const transfers = (await Promise.all([...senders].map((hash) => allPages(`/api/v2/addresses/${hash}/token-transfers`)))).flat();
  assert.deepEqual([...new Set(transfers.map((t) => t.token.type))].sort(), ['ERC-1155', 'ERC-20', 'ERC-721']);
  assert.deepEqual([...new Set(transfers.map((t) => t.type))].sort(), ['token_burning', 'token_minting', 'token_transfer']);

  const holder = transfers.find((t) => t.token.type === 'ERC-1155' && t.type === 'token_minting').to.hash;
  const balances = await allPages(`/api/v2/addresses/${holder}/tokens`);
  assert.deepEqual([...new Set(balances.map((b) => b.token.type))].sort(), ['ERC-1155', 'ERC-20']);
  assert.deepEqual(
    balances.filter((b) => !(BigInt(b.value) > 0n)).map((b) => ({ token: b.token.address_hash, value: b.value })),
    [],
    'balances not above zero',
  );
  const collections = await allPages(`/api/v2/addresses/${holder}/nft/collections`);
  assert.ok(
    collections.some((c) => c.token.type === 'ERC-1155' && c.token_instances.length > 1),
    `an ERC-1155 collection of several ids among ${JSON.stringify(collections.map((c) => [c.token.type, c.token_instances.length]))}`,
  );
  // Token contracts and NFT metadata are read in the background, the metadata from data: URIs.
  let unread = { previews: 0, symbol: false };
  await waitFor(
    async () => {
      const previews = (await allPages(`/api/v2/addresses/${holder}/nft/collections`)).flatMap((c) => c.token_instances);
      const erc20 = (await allPages(`/api/v2/addresses/${holder}/tokens`, { type: 'ERC-20' }))[0];
      unread = { previews: previews.filter((p) => p.metadata === null).length, symbol: erc20.token.symbol === null };
      return unread.previews === 0 && !unread.symbol;
    },
    () =>
      `token and NFT metadata are read (${unread.previews} NFT previews without metadata, ERC-20 symbol ${unread.symbol ? 'not read' : 'read'})`,
    { timeoutMs: 30_000, intervalMs: 200 },
  );

  // Native balances are read in the background too: the minting transaction's sender has one, and a history.
  const mint = transfers.find((t) => t.token.type === 'ERC-1155' && t.type === 'token_minting');
  const sender = (await api.get(`/api/v2/transactions/${mint.transaction_hash}`)).body.from.hash;
  await waitFor(
    async () =>
      (await api.get(`/api/v2/addresses/${sender}`)).body.coin_balance !== null &&
      (await allPages(`/api/v2/addresses/${sender}/coin-balance-history`)).length > 0,
    `the coin balance of ${sender} is read`,
    { timeoutMs: 30_000, intervalMs: 200 },
  );

  const nft = transfers.find((t) => t.token.type === 'ERC-721');
  const instance = await api.get(`/api/v2/tokens/${nft.token.address_hash}/instances/${nft.total.token_id}/transfers`);
  assert.equal(instance.status, 200);
  assert.ok(instance.headers.get('deprecation'));
  assert.notEqual(instance.body.items.length, 0);
});

test('the home page: the heads of /blocks and E2, totals equal to the full lists, indexing finished', async () => {
  // Read between two equal answers of /stats, so that a chain that moves meanwhile is read again.
  let home: { stats: any; blocks: any[]; transactions: any[]; mainBlocks: any[]; mainTransactions: any[] } | null = null;
  await waitFor(
    async () => {
      const stats = await getOk(api, '/api/v2/stats');
      const read = {
        stats,
        blocks: await allPages('/api/v2/blocks'),
        transactions: await allPages('/api/v2/transactions'),
        mainBlocks: await getOk(api, '/api/v2/main-page/blocks'),
        mainTransactions: await getOk(api, '/api/v2/main-page/transactions'),
      };
      home = read;
      return (await getOk(api, '/api/v2/stats')).total_blocks === stats.total_blocks;
    },
    'the chain stands still while the home page is read',
    { timeoutMs: 60_000, intervalMs: 200 },
  );
  const { stats, blocks, transactions, mainBlocks, mainTransactions } = home!;
  assert.deepEqual(mainBlocks, blocks.slice(0, 4));
  assert.deepEqual(mainTransactions, transactions.slice(0, 6));
  assert.equal(stats.total_blocks, String(blocks.length));
  assert.equal(stats.total_transactions, String(transactions.length));
  assert.ok(Number(stats.total_addresses) > 5, `${stats.total_addresses} addresses`);
  // The demo chain is mined now: its blocks are today's, and its gas prices are read from them.
  assert.ok(stats.gas_prices !== null && stats.gas_prices.fast >= stats.gas_prices.slow);
  await waitFor(
    async () => (await getOk(api, '/api/v2/main-page/indexing-status')).finished_indexing === true,
    'indexing is finished: blocks and traces',
    { timeoutMs: 30_000, intervalMs: 200 },
  );
  assert.deepEqual(await getOk(api, '/api/v2/main-page/indexing-status'), {
    finished_indexing: true,
    finished_indexing_blocks: true,
    indexed_blocks_ratio: 1,
    indexed_internal_transactions_ratio: 1,
  });
});

test('the demo verifies its contracts through its own API: their sources are served and their calls decoded; the ERC-1155 is left to verify', async () => {
  const tokens = await allPages('/api/v2/tokens');
  const byType = (type: string): string => tokens.find((t) => t.type === type).address_hash;
  const [erc20, erc1155] = [byType('ERC-20'), byType('ERC-1155')];
  await waitFor(async () => (await getOk(api, `/api/v2/smart-contracts/${erc20}`)).is_verified === true, 'the demo ERC-20 verified', {
    timeoutMs: 120_000,
    intervalMs: 500,
  });
  const contract = await getOk(api, `/api/v2/smart-contracts/${erc20}`);
  assert.equal(contract.name, 'DemoERC20');
  assert.equal(contract.is_fully_verified, true);
  assert.ok(contract.source_code.includes('contract DemoERC20'));
  const calls = (await allPages(`/api/v2/addresses/${erc20}/transactions`)).filter((t) => t.to?.hash === erc20);
  assert.ok(
    calls.length > 0 && calls.every((t) => t.decoded_input !== null && !t.method.startsWith('0x')),
    JSON.stringify(calls[0]?.method),
  );
  assert.equal((await getOk(api, `/api/v2/smart-contracts/${erc1155}`)).is_verified, undefined);
  // What the verification form offers: the bundled compiler, and the methods.
  const config = await getOk(api, '/api/v2/smart-contracts/verification/config');
  assert.ok(config.solidity_compiler_versions.includes(contract.compiler_version), JSON.stringify(config.solidity_compiler_versions));
  assert.ok(config.verification_options.includes('standard-input'));
  const verified = await allPages('/api/v2/smart-contracts');
  assert.ok(verified.length >= 1 && verified.every((v) => v.address.hash !== erc1155));
});

test("every answer of every endpoint about the demo chain has the shape of Blockscout's schema", async () => {
  const transactions = await allPages('/api/v2/transactions');
  const [newest] = transactions;
  const validator: string = (await getOk(api, `/api/v2/blocks/${newest.block_number}`)).miner.hash;
  const addresses = new Set<string>(['0x0000000000000000000000000000000000000000', validator]);
  for (const t of transactions) for (const a of [t.from, t.to, t.created_contract]) if (a !== null) addresses.add(a.hash);
  const transfers = (await Promise.all([...addresses].map((a) => allPages(`/api/v2/addresses/${a}/token-transfers`)))).flat();
  const subjects: ChainSubjects = {
    addresses: [...addresses],
    tokens: [...new Set(transfers.map((t) => t.token.address_hash))],
    instances: transfers.filter((t) => t.total.token_id != null).map((t) => ({ token: t.token.address_hash, id: t.total.token_id })),
    transactions: transactions.map((t) => t.hash),
    blocks: [...new Set(transactions.flatMap((t) => [String(t.block_number)]).concat(transfers.map((t) => t.block_hash)))],
  };
  assert.ok(subjects.tokens.length >= 3 && subjects.instances.length >= 3, 'the demo has tokens and NFTs');
  // Each answer is checked as it arrives (test/support/http-client.ts); the snapshot walks every page of every list.
  await collectEndpointSnapshot(api, subjects);
  assertEveryEndpointValidated(servedPaths());
});

test('a second Sextant on the same data directory is refused', async () => {
  const second = await runSextant(['start'], { SEXTANT_DATA_DIR: dataDir, PORT: '0' });
  assert.equal(second.code, 1);
  assert.match(second.stderr, /^sextant: .*(already|in use|running)/m);
});
