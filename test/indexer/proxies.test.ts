import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { pino } from 'pino';
import {
  type Abi,
  type Address,
  type Hex,
  createPublicClient,
  createWalletClient,
  decodeEventLog,
  decodeFunctionData,
  encodeFunctionData,
  getAddress,
  http,
  keccak256,
  toHex,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { createRpcClient, type RpcClient } from '../../src/chain/rpc.js';
import { startAnvil, type AnvilNode } from '../../src/demo/anvil.js';
import { type Indexer, startIndexer } from '../../src/indexer/blocks/indexer.js';
import type { BackgroundLoop } from '../../src/indexer/stages/background-loop.js';
import { startProxyStage } from '../../src/indexer/stages/proxy-stage.js';
import { startTraceStage } from '../../src/indexer/stages/trace-stage.js';
import { detectCapabilities } from '../../src/chain/capabilities.js';
import { markProxyChecks } from '../../src/store/proxies.js';
import { readProxyImplementations } from '../../src/store/read/contract-facts.js';
import { withClient } from '../../src/store/transaction.js';
import { type RunningApi, startApi } from '../api/http.js';
import { type TestDatabase, bytea, createTestDatabase } from '../support/database.js';
import { testIndexerOptions } from '../support/indexer-options.js';
import { waitForMined } from '../support/mined.js';
import { type CompiledContract, compileProxyContracts } from '../support/proxy-contracts.js';
import { waitFor } from '../support/wait.js';

// Proxies of every kind Sextant detects, deployed on anvil (prague, for EIP-7702), indexed and checked by
// the proxy stage; and the contract facts every embedded address of the API carries.

const deployerAccount = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
const authorityAccount = privateKeyToAccount('0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba');
const PROXIABLE_SLOT = keccak256(toHex('PROXIABLE'));
const ZEPPELINOS_SLOT = keccak256(toHex('org.zeppelinos.proxy.implementation'));

let anvil: AnvilNode;
let client: RpcClient;
let db: TestDatabase;
let indexer: Indexer;
let proxyStage: BackgroundLoop;
let traceStage: BackgroundLoop;
let api: RunningApi;
let contracts: Record<string, CompiledContract>;
let wallet: ReturnType<typeof createWalletClient>;
let publicClient: ReturnType<typeof createPublicClient>;

/** The deployed addresses, lowercase. */
const at: Record<string, Address> = {};

async function send(request: Promise<Hex>): Promise<Hex> {
  const hash = await request;
  await waitForMined(client, hash);
  return hash;
}

async function deploy(name: string, args: unknown[] = []): Promise<Address> {
  const { abi, bytecode } = contracts[name]!;
  const hash = await send(wallet.deployContract({ abi, bytecode, args, account: deployerAccount, chain: null }));
  const receipt = await publicClient.getTransactionReceipt({ hash });
  return receipt.contractAddress!.toLowerCase() as Address;
}

async function call(to: Address, abi: Abi, functionName: string, args: unknown[] = []): Promise<Hex> {
  return send(wallet.sendTransaction({ to, data: encodeFunctionData({ abi, functionName, args }), account: deployerAccount, chain: null }));
}

async function nodeHead(): Promise<bigint> {
  return BigInt(await client.request<Hex>('eth_blockNumber', []));
}

/** Waits until the index holds the node's head and the proxy stage has checked every mark. */
async function settled(): Promise<void> {
  const head = await nodeHead();
  await waitFor(async () => {
    const { rows } = await db.pool.query<{ number: string }>('SELECT max(number) AS number FROM blocks WHERE consensus');
    return rows[0]?.number === head.toString();
  }, `block ${head} is indexed`);
  await waitFor(async () => {
    const { rows } = await db.pool.query('SELECT 1 FROM proxy_marks LIMIT 1');
    return rows.length === 0;
  }, 'every proxy mark is checked');
}

async function implementationsOf(address: Address) {
  return (await readProxyImplementations(db.pool, [address])).get(address) ?? null;
}

before(async () => {
  contracts = compileProxyContracts();
  anvil = await startAnvil({ hardfork: 'prague' });
  client = createRpcClient({ url: anvil.rpcUrl });
  wallet = createWalletClient({ transport: http(anvil.rpcUrl) });
  publicClient = createPublicClient({ transport: http(anvil.rpcUrl) });

  at.boxV1 = await deploy('BoxV1');
  at.boxV2 = await deploy('BoxV2');
  // OpenZeppelin's ERC-1967 proxies refuse to be deployed without an initializing call.
  const initialize = encodeFunctionData({ abi: contracts.BoxV1!.abi, functionName: 'store', args: [1n] });
  at.uups = await deploy('ERC1967Proxy', [at.boxV1, initialize]);
  at.transparent = await deploy('TransparentUpgradeableProxy', [at.boxV1, deployerAccount.address, initialize]);
  at.beacon = await deploy('UpgradeableBeacon', [at.boxV1, deployerAccount.address]);
  at.beaconProxy = await deploy('BeaconProxy', [at.beacon, initialize]);
  at.eip1822 = await deploy('SlotProxy', [PROXIABLE_SLOT, at.boxV1]);
  at.zeppelinos = await deploy('SlotProxy', [ZEPPELINOS_SLOT, at.boxV1]);
  at.masterCopy = await deploy('MasterCopyProxy', [at.boxV1]);
  at.facetA = await deploy('BoxV1');
  at.diamond = await deploy('LoupeDiamond', [[at.facetA, at.boxV2]]);
  at.token = await deploy('ProxyToken');
  const factory = await deploy('BoxClones');
  const cloned = await publicClient.getTransactionReceipt({ hash: await call(factory, contracts.BoxClones!.abi, 'clone', [at.boxV1]) });
  const clonedEvent = decodeEventLog({ abi: contracts.BoxClones!.abi, ...cloned.logs[0]! }) as unknown as { args: { clone: Address } };
  at.clone = clonedEvent.args.clone.toLowerCase() as Address;
  // A call through the UUPS proxy (an internal delegatecall and a log of the proxy), and tokens held by it.
  await call(at.uups, contracts.BoxV1!.abi, 'store', [7n]);
  await call(at.token, contracts.ProxyToken!.abi, 'transfer', [at.uups, 10n ** 18n]);
  // EIP-7702: the authority delegates to BoxV1, in a set-code transaction the deployer sends.
  const authorization = await wallet.signAuthorization({ account: authorityAccount, contractAddress: at.boxV1, chainId: 31337, nonce: 0 });
  await send(
    wallet.sendTransaction({
      account: deployerAccount,
      to: authorityAccount.address,
      authorizationList: [authorization],
      data: initialize,
      chain: null,
    }),
  );
  at.delegated = authorityAccount.address.toLowerCase() as Address;
  // The next blocks are credited to the UUPS proxy: a miner that is a contract.
  await client.request('anvil_setCoinbase', [at.uups]);
  await client.request('evm_mine', []);

  db = await createTestDatabase();
  const logger = pino({ level: 'silent' });
  indexer = startIndexer(await testIndexerOptions(db, client, null));
  traceStage = startTraceStage({
    pool: db.pool,
    client,
    traceMethod: (await detectCapabilities(client)).traceMethod,
    logger,
    batchSize: 10,
    concurrency: 2,
    pollIntervalMs: 50,
  });
  proxyStage = startProxyStage({ pool: db.pool, client, logger, batchSize: 5, pollIntervalMs: 50, backoff: { initialMs: 10, maxMs: 100 } });
  // The contract code stage marks every contract whose code it reads; here the test marks them.
  await withClient(db.pool, (c) =>
    markProxyChecks(
      c,
      Object.entries(at)
        .filter(([name]) => name !== 'delegated')
        .map(([, address]) => address),
    ),
  );
  await settled();
  api = await startApi(db.pool);
});

after(async () => {
  await api?.close();
  await proxyStage?.stop();
  await traceStage?.stop();
  await indexer?.stop();
  await db?.drop();
  await anvil?.stop();
});

test('each kind of proxy is detected with its implementations, and contracts that are none are not', async () => {
  const expected: Record<string, { proxyType: string; implementations: Address[] }> = {
    uups: { proxyType: 'eip1967', implementations: [at.boxV1!] },
    transparent: { proxyType: 'eip1967', implementations: [at.boxV1!] },
    beaconProxy: { proxyType: 'eip1967_beacon', implementations: [at.boxV1!] },
    eip1822: { proxyType: 'eip1822', implementations: [at.boxV1!] },
    zeppelinos: { proxyType: 'eip1967_oz', implementations: [at.boxV1!] },
    masterCopy: { proxyType: 'master_copy', implementations: [at.boxV1!] },
    diamond: { proxyType: 'eip2535', implementations: [at.facetA!, at.boxV2!] },
    clone: { proxyType: 'eip1167', implementations: [at.boxV1!] },
    // Marked by the writer, from the indexed authorization.
    delegated: { proxyType: 'eip7702', implementations: [at.boxV1!] },
  };
  for (const [name, proxy] of Object.entries(expected)) {
    const found = await implementationsOf(at[name]!);
    assert.deepEqual(
      found && { proxyType: found.proxyType, implementations: found.implementations.map((i) => i.address) },
      proxy,
      `${name} (${at[name]})`,
    );
  }
  for (const name of ['boxV1', 'boxV2', 'beacon', 'token', 'facetA']) assert.equal(await implementationsOf(at[name]!), null, name);
  const page = (await api.get(`/api/v2/addresses/${at.diamond}`)).body;
  assert.equal(page.proxy_type, 'eip2535');
  assert.deepEqual(page.implementations, [
    { address_hash: getAddress(at.facetA!), name: null },
    { address_hash: getAddress(at.boxV2!), name: null },
  ]);
});

test('verified contracts and proxies show in every embedded address', async () => {
  await db.pool.query(
    `INSERT INTO verified_contracts (address, code_hash, name, file_path, language, compiler_version, compiler_settings,
       optimization_enabled, evm_version, source_code, additional_sources, external_libraries, match_type, method, verified_at)
     SELECT a, '\\x00', n, 'Boxes.sol', 'solidity', 'v0.8.37+commit.f401782d', '{}', true, 'cancun', '', '[]', '[]', 'full', 'standard-input', now()
     FROM unnest($1::bytea[], $2::text[]) v(a, n)`,
    [
      [bytea(at.boxV1!), bytea(at.token!)],
      ['BoxV1', 'ProxyToken'],
    ],
  );
  const uups = getAddress(at.uups!);
  const proxyFacts = {
    hash: uups,
    is_contract: true,
    is_verified: false,
    name: null,
    proxy_type: 'eip1967',
    implementations: [{ address_hash: getAddress(at.boxV1!), name: 'BoxV1' }],
  };
  const withName = { ...proxyFacts, implementation_name: 'BoxV1' };
  const pick = (address: Record<string, unknown>, keys = Object.keys(withName)) => Object.fromEntries(keys.map((k) => [k, address[k]]));

  const page = (await api.get(`/api/v2/addresses/${at.uups}`)).body;
  assert.deepEqual(pick(page, Object.keys(proxyFacts)), proxyFacts, 'the address page');
  const transactions = (await api.get('/api/v2/transactions')).body.items as any[];
  const store = transactions.find((t) => t.to?.hash === uups);
  assert.ok(store, 'the call to the proxy is listed');
  assert.deepEqual(pick(store.to), withName, 'a transaction list item');
  assert.deepEqual(pick((await api.get(`/api/v2/transactions/${store.hash}`)).body.to), withName, 'the transaction page');
  const logs = (await api.get(`/api/v2/transactions/${store.hash}/logs`)).body.items;
  assert.deepEqual(pick(logs[0].address), withName, 'a log');
  await waitFor(
    async () => (await api.get(`/api/v2/transactions/${store.hash}/internal-transactions`)).body.items.length > 0,
    'the call is traced',
  );
  const internal = (await api.get(`/api/v2/transactions/${store.hash}/internal-transactions`)).body.items[0];
  assert.deepEqual(pick(internal.from), withName, 'an internal transaction');
  assert.deepEqual(pick(internal.to, ['hash', 'is_verified', 'name', 'proxy_type']), {
    hash: getAddress(at.boxV1!),
    is_verified: true,
    name: 'BoxV1',
    proxy_type: null,
  });
  const transfers = (await api.get(`/api/v2/tokens/${at.token}/transfers`)).body.items;
  const toProxy = transfers.find((t: any) => t.to.hash === uups);
  assert.deepEqual(pick(toProxy.to), withName, 'a token transfer');
  const holders = (await api.get(`/api/v2/tokens/${at.token}/holders`)).body.items;
  assert.deepEqual(pick(holders.find((h: any) => h.address.hash === uups).address, Object.keys(proxyFacts)), proxyFacts, 'a holder');
  const blocks = (await api.get('/api/v2/blocks')).body.items;
  assert.deepEqual(pick(blocks[0].miner), withName, 'a miner');
  const tokenCreation = transactions.find((t: any) => t.created_contract?.hash === getAddress(at.token!));
  assert.ok(tokenCreation);
  assert.deepEqual(pick(tokenCreation.created_contract, ['is_verified', 'name', 'proxy_type']), {
    is_verified: true,
    name: 'ProxyToken',
    proxy_type: null,
  });
  const search = (await api.get(`/api/v2/search?q=${at.token}`)).body.items;
  assert.ok(search.length > 0 && search.every((item: any) => item.is_smart_contract_verified === true), JSON.stringify(search));
  // A call through the proxy is decoded with its implementation's verified ABI (the proxy has none of its own).
  await db.pool.query('UPDATE verified_contracts SET abi = $2 WHERE address = $1', [
    bytea(at.boxV1!),
    JSON.stringify(contracts.BoxV1!.abi),
  ]);
  const decoded = ((await api.get('/api/v2/transactions')).body.items as any[]).find((t) => t.hash === store.hash);
  assert.equal(decoded.method, 'store');
  assert.deepEqual(
    decoded.decoded_input.parameters.map((p: { value: unknown }) => p.value),
    [String((decodeFunctionData({ abi: contracts.BoxV1!.abi, data: store.raw_input }).args as bigint[])[0])],
  );
  // A minimal proxy counts as verified when its implementation is (Blockscout's rule); the EIP-7702 authority too.
  for (const name of ['clone', 'delegated'] as const) {
    const address = (await api.get(`/api/v2/addresses/${at[name]}`)).body;
    assert.equal(address.is_verified, true, name);
    assert.deepEqual(address.implementations, [{ address_hash: getAddress(at.boxV1!), name: 'BoxV1' }], name);
  }
});

test('an upgrade is followed at the block that indexed it, a beacon upgrade for the proxies that follow it', async () => {
  const upgrade = await call(at.uups!, contracts.BoxV1!.abi, 'upgradeToAndCall', [at.boxV2, '0x']);
  const beaconUpgrade = await call(at.beacon!, contracts.UpgradeableBeacon!.abi, 'upgradeTo', [at.boxV2]);
  await settled();
  const upgradedAt = (await publicClient.getTransactionReceipt({ hash: upgrade })).blockNumber;
  const beaconUpgradedAt = (await publicClient.getTransactionReceipt({ hash: beaconUpgrade })).blockNumber;
  assert.deepEqual((await implementationsOf(at.uups!))?.implementations, [{ address: at.boxV2, name: null }]);
  assert.deepEqual((await implementationsOf(at.beaconProxy!))?.implementations, [{ address: at.boxV2, name: null }]);
  const { rows } = await db.pool.query<{ address: Buffer; block_number: string }>(
    'SELECT address, block_number FROM proxy_implementations WHERE address = ANY($1::bytea[])',
    [[bytea(at.uups!), bytea(at.beaconProxy!)]],
  );
  const readAt = new Map(rows.map((r) => [`0x${r.address.toString('hex')}`, BigInt(r.block_number)]));
  // Read no later than the block after the upgrade's (the head may have moved on while the mark waited).
  assert.ok(
    readAt.get(at.uups!)! >= upgradedAt && readAt.get(at.uups!)! <= upgradedAt + 1n,
    `read at ${readAt.get(at.uups!)}, upgraded at ${upgradedAt}`,
  );
  assert.ok(readAt.get(at.beaconProxy!)! >= beaconUpgradedAt && readAt.get(at.beaconProxy!)! <= beaconUpgradedAt + 1n);
});

test('a reorg that undoes an upgrade restores the old implementation', async () => {
  const before = (await implementationsOf(at.transparent!))?.implementations;
  assert.deepEqual(before, [{ address: at.boxV1, name: 'BoxV1' }]);
  const snapshot = await client.request<Hex>('evm_snapshot', []);
  // The transparent proxy's admin is the ProxyAdmin it created, named in the EIP-1967 admin slot.
  const adminSlot = await client.request<Hex>('eth_getStorageAt', [
    at.transparent,
    '0xb53127684a568b3173ae13b9f8a6016e243e63b6e8ee1178d6a717850b5d6103',
    'latest',
  ]);
  const admin = `0x${adminSlot.slice(26)}` as Address;
  await call(admin, contracts.ProxyAdmin!.abi, 'upgradeAndCall', [at.transparent, at.boxV2, '0x']);
  await settled();
  assert.deepEqual((await implementationsOf(at.transparent!))?.implementations, [{ address: at.boxV2, name: null }]);
  assert.equal(await client.request<boolean>('evm_revert', [snapshot]), true);
  // A longer branch without the upgrade.
  for (let i = 0; i < 3; i++) await client.request('evm_mine', []);
  await settled();
  assert.deepEqual((await implementationsOf(at.transparent!))?.implementations, before);
  const page = (await api.get(`/api/v2/addresses/${at.transparent}`)).body;
  assert.deepEqual(page.implementations, [{ address_hash: getAddress(at.boxV1!), name: 'BoxV1' }]);
});
