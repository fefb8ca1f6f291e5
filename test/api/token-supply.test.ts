import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { pino } from 'pino';
import { createPublicClient, createWalletClient, getAddress, http, parseEther, type Address, type Hex } from 'viem';
import { createRpcClient, type RpcClient } from '../../src/chain/rpc.js';
import { startAnvil, type AnvilNode } from '../../src/demo/anvil.js';
import { DemoERC20 } from '../../src/demo/artifacts.js';
import { runScenario, type ScenarioResult } from '../../src/demo/scenario.js';
import { startIndexer, type Indexer } from '../../src/indexer/blocks/indexer.js';
import type { BackgroundLoop } from '../../src/indexer/stages/background-loop.js';
import { startTokenMetadataStage } from '../../src/indexer/stages/token-metadata-stage.js';
import { type TestDatabase, bytea, createTestDatabase } from '../support/database.js';
import { testIndexerOptions } from '../support/indexer-options.js';
import { waitFor } from '../support/wait.js';
import { type RunningApi, collectList, startApi } from './http.js';

/** The demo chain indexed as it grows, with the token metadata stage running beside the indexer. */
let anvil: AnvilNode;
let client: RpcClient;
let scenario: ScenarioResult;
let db: TestDatabase;
let indexer: Indexer;
let stage: BackgroundLoop;
let api: RunningApi;

before(async () => {
  anvil = await startAnvil();
  scenario = await runScenario(anvil.rpcUrl);
  client = createRpcClient({ url: anvil.rpcUrl });
  db = await createTestDatabase();
  indexer = startIndexer(await testIndexerOptions(db, client, null));
  stage = startStage();
  api = await startApi(db.pool);
});
after(async () => {
  await api?.close();
  await stage?.stop();
  await indexer?.stop();
  await db?.drop();
  await anvil?.stop();
});

const startStage = () =>
  startTokenMetadataStage({ pool: db.pool, client, logger: pino({ level: 'silent' }), batchSize: 2, pollIntervalMs: 20 });

const totalSupplySelector = '0x18160ddd';

async function nodeTotalSupply(token: Address): Promise<string> {
  return BigInt(await client.request<Hex>('eth_call', [{ to: token, data: totalSupplySelector }, 'latest'])).toString();
}

/** The token object of `token` as E8 and E1 serve it for `holder`. */
async function servedTokens(holder: Address, token: Address): Promise<{ e8: any; e1: any }> {
  const transfers = await collectList(api, `/api/v2/addresses/${holder}/token-transfers`, { token });
  const balances = await collectList(api, `/api/v2/addresses/${holder}/tokens`, { type: 'ERC-20' });
  return {
    e8: transfers.items[0]?.token,
    e1: balances.items.find((i) => i.token.address_hash === getAddress(token))?.token,
  };
}

async function indexedHead(): Promise<bigint> {
  const { rows } = await db.pool.query<{ n: string | null }>('SELECT max(number)::text AS n FROM blocks WHERE consensus');
  return BigInt(rows[0]!.n ?? -1);
}

async function supplyMark(token: Address): Promise<string | null> {
  const { rows } = await db.pool.query<{ mark: string | null }>('SELECT supply_mark::text AS mark FROM tokens WHERE address = $1', [
    bytea(token),
  ]);
  return rows[0]!.mark;
}

/** Waits until the indexer has the node's head and the stage has no supply left to refresh. */
async function settle(token: Address): Promise<void> {
  const head = BigInt(await client.request<Hex>('eth_blockNumber', []));
  let indexed = -1n;
  let mark: string | null | undefined;
  await waitFor(
    async () => {
      indexed = await indexedHead();
      mark = indexed < head ? undefined : await supplyMark(token);
      return mark === null;
    },
    () => `the indexer and the metadata stage settle (indexed head ${indexed} of ${head}, supply mark ${mark ?? 'not read'})`,
    { timeoutMs: 15_000, intervalMs: 20 },
  );
}

async function send(write: (wallet: ReturnType<typeof createWalletClient>) => Promise<Hex>): Promise<void> {
  const hash = await write(createWalletClient({ transport: http(anvil.rpcUrl) }));
  await createPublicClient({ transport: http(anvil.rpcUrl) }).waitForTransactionReceipt({ hash, pollingInterval: 5 });
}

test('total_supply follows mints and burns written after the first read', async () => {
  const { alice, bob, deployer } = scenario.accounts;
  const token = scenario.contracts.erc20;
  const call = { address: token, abi: DemoERC20.abi, chain: null } as const;
  await settle(token);
  const before = await servedTokens(alice, token);
  assert.equal(before.e8.total_supply, await nodeTotalSupply(token));

  await send((wallet) => wallet.writeContract({ ...call, account: deployer, functionName: 'mint', args: [alice, parseEther('123')] }));
  await send((wallet) => wallet.writeContract({ ...call, account: deployer, functionName: 'mint', args: [bob, parseEther('7')] }));
  await send((wallet) => wallet.writeContract({ ...call, account: alice, functionName: 'burn', args: [parseEther('1000')] }));
  await settle(token);
  const supply = await nodeTotalSupply(token);
  assert.notEqual(supply, before.e8.total_supply);
  const after = await servedTokens(alice, token);
  assert.equal(after.e8.total_supply, supply);
  assert.equal(after.e1.total_supply, supply);
});

test('a total supply that cannot be read again keeps the value read before', async () => {
  const { alice, deployer } = scenario.accounts;
  const token = scenario.contracts.erc20;
  await settle(token);
  const known = (await servedTokens(alice, token)).e8.total_supply;
  // With the stage stopped: a mint, then the contract's code replaced by one that reverts every call.
  await stage.stop();
  await send((wallet) =>
    wallet.writeContract({ address: token, abi: DemoERC20.abi, chain: null, account: deployer, functionName: 'mint', args: [alice, 5n] }),
  );
  await client.request('anvil_setCode', [token, '0xfe']);
  stage = startStage();
  await settle(token);
  assert.equal((await servedTokens(alice, token)).e8.total_supply, known);
});
