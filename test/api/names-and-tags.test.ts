import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { pino } from 'pino';
import { type Abi, type Address, type Hex, createWalletClient, getAddress, http } from 'viem';
import { createRpcClient, type RpcClient } from '../../src/chain/rpc.js';
import { startAnvil, type AnvilNode } from '../../src/demo/anvil.js';
import { DemoCaller, DemoERC20 } from '../../src/demo/artifacts.js';
import { type Indexer, startIndexer } from '../../src/indexer/blocks/indexer.js';
import { startAddressTagsStage } from '../../src/indexer/stages/address-tags-stage.js';
import { forgetSource } from '../../src/store/offchain-sources.js';
import type { BackgroundLoop } from '../../src/indexer/stages/background-loop.js';
import { startEnsStage } from '../../src/indexer/stages/ens-stage.js';
import { startTraceStage } from '../../src/indexer/stages/trace-stage.js';
import { type TestDatabase, createTestDatabase } from '../support/database.js';
import { type EnsDeployment, deployEns } from '../support/ens-contracts.js';
import { testIndexerOptions } from '../support/indexer-options.js';
import { waitForMined } from '../support/mined.js';
import { waitFor } from '../support/wait.js';
import { type RunningApi, startApi } from './http.js';

// ENS's own contracts (from npm) on anvil: primary names set through the reverse registrar, indexed and
// read by the ENS stage, shown on embedded addresses and the address page, found by search; and the
// operator's tags file, loaded and reloaded by the tags stage.

let anvil: AnvilNode;
let client: RpcClient;
let db: TestDatabase;
let indexer: Indexer;
let ensStage: BackgroundLoop;
let tagsStage: BackgroundLoop;
let api: RunningApi;
let ens: EnsDeployment;
let tagsDir: string;
let tagsFile: string;
let alice: Address;
let bob: Address;
let carol: Address;

const logger = pino({ level: 'silent' });

/** The embedded `from` of an address's newest transaction, in its transaction list. */
async function embeddedSender(address: Address) {
  const { body } = await api.get(`/api/v2/addresses/${address}/transactions`);
  const sent = (body.items as { from: Record<string, unknown> }[]).find((t) => t.from.hash === getAddress(address));
  assert.ok(sent, `a transaction sent by ${address} is listed`);
  return sent.from;
}

const pageName = async (address: Address) => (await api.get(`/api/v2/addresses/${address}`)).body.ens_domain_name as string | null;

before(async () => {
  anvil = await startAnvil();
  client = createRpcClient({ url: anvil.rpcUrl });
  const accounts = (await client.request<Address[]>('eth_accounts', [])).map((a) => a.toLowerCase() as Address);
  const deployer = accounts[0]!;
  [alice, bob, carol] = [accounts[1]!, accounts[2]!, accounts[3]!];
  ens = await deployEns(anvil.rpcUrl, client, deployer);
  await ens.register('alice', alice, alice);
  await ens.setPrimaryName(alice, 'alice.eth');
  // Bob claims alice's name in his reverse record: it resolves to alice, not to him.
  await ens.setPrimaryName(bob, 'alice.eth');
  // Carol's name resolves to alice: hers is not shown either.
  await ens.register('carol', carol, alice);
  await ens.setPrimaryName(carol, 'carol.eth');

  tagsDir = await mkdtemp(join(tmpdir(), 'sextant-tags-'));
  tagsFile = join(tagsDir, 'tags.json');
  await writeFile(
    tagsFile,
    JSON.stringify([
      { address: getAddress(alice), label: 'Alice Treasury', tag_type: 'public' },
      { address: alice, label: 'Alice', tag_type: 'name', ordinal: 2, meta: { tooltipDescription: 'the first account' } },
      { address: ens.registry, label: 'ENS', tag_type: 'protocol', slug: 'ens-protocol' },
    ]),
  );

  db = await createTestDatabase();
  indexer = startIndexer(await testIndexerOptions(db, client, null));
  const loop = { logger, pollIntervalMs: 50, backoff: { initialMs: 10, maxMs: 100 } };
  ensStage = startEnsStage({
    ...loop,
    pool: db.pool,
    client,
    registry: ens.registry,
    firstBlock: 0n,
    batchSize: 3,
    scanBlocks: 4,
    recheckAfterMs: 3_600_000,
    tracedBlocks: false,
  });
  tagsStage = startAddressTagsStage({ ...loop, pool: db.pool, path: tagsFile });
  api = await startApi(db.pool);
});

after(async () => {
  await api?.close();
  await tagsStage?.stop();
  await ensStage?.stop();
  await indexer?.stop();
  await db?.drop();
  await anvil?.stop();
  if (tagsDir) await rm(tagsDir, { recursive: true, force: true });
});

test('a primary name set through the reverse registrar is shown on embedded addresses and the address page', async () => {
  await waitFor(async () => (await pageName(alice)) === 'alice.eth', "alice's name on her address page");
  assert.equal((await embeddedSender(alice)).ens_domain_name, 'alice.eth');
  const { body } = await api.get('/api/v2/transactions');
  const fromAlice = (body.items as { from: { hash: string; ens_domain_name: string | null } }[]).filter(
    (t) => t.from.hash === getAddress(alice),
  );
  assert.ok(fromAlice.length > 0);
  for (const t of fromAlice) assert.equal(t.from.ens_domain_name, 'alice.eth');
});

test('a name whose forward resolution gives another address is not shown', async () => {
  // Alice's name, read after bob's and carol's reverse records were set, so their checks are done too.
  await waitFor(async () => (await db.pool.query('SELECT 1 FROM ens_marks')).rowCount === 0, 'every marked address is checked');
  const { rows } = await db.pool.query<{ claimed: string | null; name: string | null }>(
    "SELECT claimed, name FROM ens_names WHERE address = decode($1, 'hex')",
    [bob.slice(2)],
  );
  assert.deepEqual(rows, [{ claimed: 'alice.eth', name: null }], "bob's reverse record is read, and not trusted");
  assert.equal(await pageName(bob), null);
  assert.equal((await embeddedSender(bob)).ens_domain_name, null);
  assert.equal(await pageName(carol), null);
});

test('search finds an address by its primary name, in both search endpoints', async () => {
  const expected = {
    address_hash: getAddress(alice),
    certified: false,
    ens_info: { address_hash: getAddress(alice), expiry_date: null, name: 'alice.eth', names_count: 1 },
    is_smart_contract_verified: false,
    name: null,
    priority: 0,
    reputation: 'ok',
    type: 'ens_domain',
    url: `/address/${getAddress(alice)}`,
  };
  const search = (await api.get('/api/v2/search?q=Alice.eth')).body;
  assert.deepEqual(search.items, [expected]);
  assert.deepEqual((await api.get('/api/v2/search/quick?q=alice.eth')).body, [expected]);
  // Found by its address, the address result carries its name too.
  const byAddress = (await api.get(`/api/v2/search?q=${alice}`)).body.items as Record<string, unknown>[];
  assert.deepEqual(byAddress.find((i) => i.type === 'address')?.ens_info, expected.ens_info);
  // A name nobody resolves to finds nothing.
  assert.deepEqual((await api.get('/api/v2/search?q=carol.eth')).body.items, []);
  // The search box's redirect goes to the named address, as Blockscout's from_param does.
  assert.deepEqual((await api.get('/api/v2/search/check-redirect?q=%20ALICE.eth%20')).body, {
    parameter: getAddress(alice),
    redirect: true,
    type: 'address',
  });
  assert.deepEqual((await api.get('/api/v2/search/check-redirect?q=carol.eth')).body, { parameter: null, redirect: false, type: null });
});

test('a changed primary name is picked up', async () => {
  await ens.register('alice2', alice, alice);
  await ens.setPrimaryName(alice, 'alice2.eth');
  await waitFor(async () => (await pageName(alice)) === 'alice2.eth', "alice's new name on her address page");
  assert.equal((await embeddedSender(alice)).ens_domain_name, 'alice2.eth');
  assert.deepEqual((await api.get('/api/v2/search?q=alice.eth')).body.items, []);
  assert.equal(((await api.get('/api/v2/search?q=alice2.eth')).body.items as unknown[]).length, 1);
});

test("the tags file's tags are on the address page and embedded addresses, and a changed file is loaded again", async () => {
  const aliceTags = {
    public_tags: [{ address_hash: getAddress(alice), display_name: 'Alice Treasury', label: 'alice-treasury' }],
    metadata: { tags: [{ slug: 'alice', name: 'Alice', tagType: 'name', ordinal: 2, meta: { tooltipDescription: 'the first account' } }] },
  };
  await waitFor(async () => (await api.get(`/api/v2/addresses/${alice}`)).body.metadata !== null, "alice's tags on her page");
  const page = (await api.get(`/api/v2/addresses/${alice}`)).body;
  assert.deepEqual({ public_tags: page.public_tags, metadata: page.metadata }, aliceTags);
  const sender = await embeddedSender(alice);
  assert.deepEqual({ public_tags: sender.public_tags, metadata: sender.metadata }, aliceTags);
  const registryPage = (await api.get(`/api/v2/addresses/${ens.registry}`)).body;
  assert.deepEqual(registryPage.public_tags, []);
  assert.deepEqual(registryPage.metadata, { tags: [{ slug: 'ens-protocol', name: 'ENS', tagType: 'protocol', ordinal: 0, meta: null }] });

  await writeFile(tagsFile, JSON.stringify([{ address: bob, label: 'Bob', tag_type: 'generic' }]));
  await waitFor(async () => (await api.get(`/api/v2/addresses/${bob}`)).body.metadata !== null, "bob's tag after the file changed");
  const alicePage = (await api.get(`/api/v2/addresses/${alice}`)).body;
  assert.deepEqual({ public_tags: alicePage.public_tags, metadata: alicePage.metadata }, { public_tags: [], metadata: null });

  const tagsSource = async () =>
    ((await api.get('/health')).body.offchain_sources as { name: string; available: boolean; last_error: string | null }[]).find(
      (source) => source.name === 'address_tags',
    );
  assert.deepEqual(
    { available: (await tagsSource())?.available, last_error: (await tagsSource())?.last_error },
    { available: true, last_error: null },
  );

  // A file that does not parse leaves the tags loaded before, and /health says so.
  await writeFile(tagsFile, '[{"address": "0x12", "label": "broken", "tag_type": "name"}]');
  await waitFor(async () => (await tagsSource())?.available === false, 'the broken tags file in /health');
  assert.match((await tagsSource())!.last_error!, /address/);
  const bobTags = { tags: [{ slug: 'bob', name: 'Bob', tagType: 'generic', ordinal: 0, meta: null }] };
  assert.deepEqual((await api.get(`/api/v2/addresses/${bob}`)).body.metadata, bobTags);

  // Mended, it is loaded again and available.
  await writeFile(
    tagsFile,
    JSON.stringify([
      { address: bob, label: 'Bob', tag_type: 'generic' },
      { address: alice, label: 'Alice', tag_type: 'name' },
    ]),
  );
  await waitFor(async () => (await tagsSource())?.available === true, 'the mended tags file in /health');
  assert.notEqual((await api.get(`/api/v2/addresses/${alice}`)).body.metadata, null);

  // Without ADDRESS_TAGS_FILE, an indexer forgets the tags and the source.
  await tagsStage.stop();
  await forgetSource(db.pool, 'address_tags');
  assert.equal(await tagsSource(), undefined);
  assert.deepEqual((await api.get(`/api/v2/addresses/${bob}`)).body.metadata, null);
});

test('an address seen only as a miner, in a token transfer or in an internal transaction is looked up too, from an index that starts after its name was set', async () => {
  const accounts = (await client.request<Address[]>('eth_accounts', [])).map((a) => a.toLowerCase() as Address);
  const [deployer, dave, erin, frank] = [accounts[0]!, accounts[4]!, accounts[5]!, accounts[6]!];
  for (const [label, account] of [
    ['dave', dave],
    ['erin', erin],
    ['frank', frank],
  ] as const) {
    await ens.register(label, account, account);
    await ens.setPrimaryName(account, `${label}.eth`);
  }
  // From here on, they send nothing: erin mines the blocks, dave receives minted tokens, frank a contract's payment.
  const firstBlock = BigInt(await client.request<string>('eth_blockNumber', [])) + 1n;
  await client.request('anvil_setCoinbase', [erin]);
  const wallet = createWalletClient({ transport: http(anvil.rpcUrl) });
  const deploy = async ({ abi, bytecode }: { abi: Abi; bytecode: Hex }): Promise<Address> => {
    const hash = await wallet.deployContract({ abi, bytecode, account: deployer, chain: null });
    await waitForMined(client, hash);
    return (await client.request<{ contractAddress: Address }>('eth_getTransactionReceipt', [hash])).contractAddress;
  };
  const token = await deploy(DemoERC20);
  const mint = await wallet.writeContract({
    address: token,
    abi: DemoERC20.abi,
    functionName: 'mint',
    args: [dave, 5n],
    account: deployer,
    chain: null,
  });
  await waitForMined(client, mint);
  const caller = await deploy(DemoCaller);
  const split = await wallet.writeContract({
    address: caller,
    abi: DemoCaller.abi,
    functionName: 'split',
    args: [[frank]],
    value: 7n,
    account: deployer,
    chain: null,
  });
  await waitForMined(client, split);

  const later = await createTestDatabase();
  const laterIndexer = startIndexer(await testIndexerOptions(later, client, null));
  const laterTraces = startTraceStage({
    pool: later.pool,
    client,
    traceMethod: 'trace_block',
    logger,
    batchSize: 5,
    concurrency: 2,
    pollIntervalMs: 50,
    backoff: { initialMs: 10, maxMs: 100 },
  });
  const laterEns = startEnsStage({
    logger,
    pollIntervalMs: 50,
    backoff: { initialMs: 10, maxMs: 100 },
    pool: later.pool,
    client,
    registry: ens.registry,
    firstBlock,
    batchSize: 3,
    scanBlocks: 4,
    recheckAfterMs: 3_600_000,
    tracedBlocks: true,
  });
  const laterApi = await startApi(later.pool);
  try {
    const name = async (address: Address) => (await laterApi.get(`/api/v2/addresses/${address}`)).body.ens_domain_name as string | null;
    await waitFor(
      async () => (await name(dave)) === 'dave.eth' && (await name(erin)) === 'erin.eth' && (await name(frank)) === 'frank.eth',
      "dave's, erin's and frank's names",
    );
    for (const account of [dave, erin, frank]) {
      const { rows } = await later.pool.query('SELECT 1 FROM transactions WHERE block_number >= $1 AND $2 IN (from_address, to_address)', [
        firstBlock.toString(),
        Buffer.from(account.slice(2), 'hex'),
      ]);
      assert.equal(rows.length, 0, `${account} is in no transaction the scan saw`);
    }
    const payments = (await laterApi.get(`/api/v2/transactions/${split}/internal-transactions`)).body.items as {
      to: { ens_domain_name: string | null };
    }[];
    assert.deepEqual(
      payments.map((p) => p.to.ens_domain_name),
      ['frank.eth'],
    );
    const transfers = (await laterApi.get(`/api/v2/tokens/${token}/transfers`)).body.items as { to: { ens_domain_name: string | null } }[];
    assert.deepEqual(
      transfers.map((t) => t.to.ens_domain_name),
      ['dave.eth'],
    );
  } finally {
    await laterApi.close();
    await laterEns.stop();
    await laterTraces.stop();
    await laterIndexer.stop();
    await later.drop();
  }
});
