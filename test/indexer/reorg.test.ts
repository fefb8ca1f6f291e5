import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import {
  createPublicClient,
  encodeFunctionData,
  getContractAddress,
  http,
  keccak256,
  numberToHex,
  parseEther,
  parseGwei,
  stringToHex,
  type Address,
  type Hex,
  type PublicClient,
} from 'viem';
import { buildApi } from '../../src/api/server.js';
import { detectCapabilities } from '../../src/chain/capabilities.js';
import { createRpcClient, type RpcClient } from '../../src/chain/rpc.js';
import { startAnvil, type AnvilNode } from '../../src/demo/anvil.js';
import { DemoCaller, DemoERC1155, DemoERC20, DemoERC721 } from '../../src/demo/artifacts.js';
import { runScenario, type ScenarioResult } from '../../src/demo/scenario.js';
import type { BackgroundLoop } from '../../src/indexer/stages/background-loop.js';
import { type Indexer, ReorgTooDeepError, startIndexer } from '../../src/indexer/blocks/indexer.js';
import { startNftMetadataStage } from '../../src/indexer/stages/nft-metadata-stage.js';
import { startTokenMetadataStage } from '../../src/indexer/stages/token-metadata-stage.js';
import { startTraceStage } from '../../src/indexer/stages/trace-stage.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { assertSameSnapshot, snapshotDatabase } from '../support/database-snapshot.js';
import {
  type ChainSubjects,
  type EndpointSnapshot,
  blockListsOfLostBlocks,
  collectEndpointSnapshot,
  firstDifference,
  indexedSubjects,
  injectedApi,
  mergeSubjects,
  snapshotDifferences,
} from '../support/endpoint-snapshot.js';
import { testIndexerOptions } from '../support/indexer-options.js';
import { dailyFigureMismatches, instanceTransferCountMismatches } from '../support/stored-counters.js';
import { waitFor } from '../support/wait.js';

/**
 * Reorgs made on anvil while the indexer follows its head: a snapshot is taken, a branch that moves
 * tokens, calls contracts with value and creates contracts is mined and indexed (traces included),
 * then the node reverts to the snapshot and mines a longer, different branch. Once the indexer has
 * followed, every endpoint must answer exactly what a fresh index of the final chain answers.
 */

const depths = [1, 2, 5, 10, 20];
const WAIT_MS = 120_000;

interface Pipeline {
  db: TestDatabase;
  indexer: Indexer;
  traceStage: BackgroundLoop;
  tokenStage: BackgroundLoop;
  nftStage: BackgroundLoop;
  app: FastifyInstance;
}

let anvil: AnvilNode;
let client: RpcClient;
let reader: PublicClient;
let scenario: ScenarioResult;
let live: Pipeline;

async function startPipeline(lastBlock: bigint | null): Promise<Pipeline> {
  const db = await createTestDatabase();
  const options = await testIndexerOptions(db, client, lastBlock);
  return {
    db,
    indexer: startIndexer(options),
    traceStage: await startTracing(db),
    tokenStage: startTokenMetadataStage({ ...backgroundOptions(db), batchSize: 10 }),
    nftStage: startNftStage(db),
    app: await buildApi({ pool: db.pool }),
  };
}

const backgroundOptions = (db: TestDatabase) => ({
  pool: db.pool,
  client,
  logger: pino({ level: 'silent' }),
  pollIntervalMs: 50,
  backoff: { initialMs: 10, maxMs: 100 },
});

const startTracing = async (db: TestDatabase, logger = pino({ level: 'silent' })): Promise<BackgroundLoop> =>
  startTraceStage({
    ...backgroundOptions(db),
    logger,
    traceMethod: (await detectCapabilities(client)).traceMethod,
    batchSize: 5,
    concurrency: 2,
  });

// The demo NFTs' metadata are data: URIs; no gateway is reached.
const startNftStage = (db: TestDatabase): BackgroundLoop =>
  startNftMetadataStage({
    ...backgroundOptions(db),
    batchSize: 10,
    fetch: { ipfsGateway: 'http://127.0.0.1:9/ipfs', timeoutMs: 1_000, maxBytes: 1024 * 1024, retries: 0 },
  });

async function stopPipeline(pipeline: Pipeline): Promise<void> {
  await pipeline.indexer.stop();
  for (const stage of [pipeline.traceStage, pipeline.tokenStage, pipeline.nftStage]) await stage.stop();
  await pipeline.app.close();
  await pipeline.db.drop();
}

const nodeHead = async (): Promise<{ number: bigint; hash: Hex }> => {
  const block = await client.request<{ number: Hex; hash: Hex }>('eth_getBlockByNumber', ['latest', false]);
  return { number: BigInt(block.number), hash: block.hash };
};

/**
 * Waits until the pipeline holds the node's head block and nothing is left for its stages: every
 * block traced, every token and NFT id read, no total supply waiting to be read again.
 */
async function waitUntilSettled(
  pipeline: Pipeline,
  head: { number: bigint; hash: Hex },
  { traces = true, nfts = true } = {},
): Promise<void> {
  await waitFor(
    async () => {
      const { rows } = await pipeline.db.pool.query<{ settled: boolean }>(
        `SELECT EXISTS (SELECT 1 FROM blocks WHERE consensus AND number = $1 AND hash = $2)
          AND NOT EXISTS (SELECT 1 FROM blocks WHERE consensus AND number > $1)
          AND NOT ($4 AND EXISTS (SELECT 1 FROM blocks WHERE consensus AND traced_at IS NULL))
          AND NOT EXISTS (SELECT 1 FROM tokens WHERE metadata_fetched_at IS NULL OR supply_mark IS NOT NULL)
          AND NOT ($3 AND EXISTS (SELECT 1 FROM token_instances WHERE metadata_fetched_at IS NULL)) AS settled`,
        [head.number.toString(), Buffer.from(head.hash.slice(2), 'hex'), nfts, traces],
      );
      return rows[0]!.settled;
    },
    `block ${head.number} (${head.hash}) is indexed and the stages are idle`,
    { timeoutMs: WAIT_MS },
  );
}

/** Waits until the pipeline has read the metadata of every NFT id it holds. */
async function waitUntilNftsRead(pipeline: Pipeline): Promise<void> {
  await waitFor(
    async () => {
      const { rows } = await pipeline.db.pool.query('SELECT 1 FROM token_instances WHERE metadata_fetched_at IS NULL LIMIT 1');
      return rows.length === 0;
    },
    'every NFT id is read',
    { timeoutMs: WAIT_MS },
  );
}

interface Call {
  from: Address;
  to?: Address;
  data?: Hex;
  value?: bigint;
}

// Explicit gas and fees: estimation would run against the parent block, before an earlier
// transaction of the same block (a deployment) has run, and equal fees keep each sender's nonce order.
const fees = { gas: numberToHex(1_500_000), maxFeePerGas: numberToHex(parseGwei('3')), maxPriorityFeePerGas: numberToHex(parseGwei('1')) };

/** Mines one block holding exactly these calls, all of which must succeed; returns their hashes. */
async function mineBlock(calls: Call[]): Promise<Hex[]> {
  const hashes: Hex[] = [];
  for (const call of calls) {
    const value = call.value === undefined ? undefined : numberToHex(call.value);
    hashes.push(await client.request<Hex>('eth_sendTransaction', [{ ...fees, from: call.from, to: call.to, data: call.data, value }]));
  }
  await client.request('evm_mine', []);
  const head = await nodeHead();
  for (const hash of hashes) {
    const receipt = await client.request<{ status: Hex; blockHash: Hex }>('eth_getTransactionReceipt', [hash]);
    assert.equal(receipt.status, '0x1', `transaction ${hash} succeeds`);
    assert.equal(receipt.blockHash, head.hash, `transaction ${hash} is in block ${head.number}`);
  }
  return hashes;
}

type BranchKind = 'replaced' | 'final';

interface Branch {
  blockHashes: Hex[];
  transactions: Hex[];
  /** The contract deployed by an EOA in the replaced branch, an address with no code in the final one. */
  deployed: Address | null;
}

const call = (abi: readonly unknown[], functionName: string, args: readonly unknown[]): Hex =>
  encodeFunctionData({ abi, functionName, args } as Parameters<typeof encodeFunctionData>[0]);

/**
 * Mines a branch of `length` blocks. Each block moves ERC-20 balances, mints an ERC-721 id and passes
 * on the one minted in the block before, mints and passes on ERC-1155 amounts, and sends value through
 * contract calls (internal transactions); the replaced branch also creates contracts (internally, and
 * a token deployed by an EOA), mints through an internal call, and the final branch burns. Recipients
 * and amounts differ between the two kinds of branch, so the same heights carry other effects.
 */
async function mineBranch(kind: BranchKind, round: number, length: number, replacedDeployment: Address | null): Promise<Branch> {
  const { deployer, alice, bob, carol, dave, payees } = scenario.accounts;
  const { erc20, erc721, erc1155, caller } = scenario.contracts;
  const replaced = kind === 'replaced';
  const [recipient, minter] = replaced ? [bob, carol] : [carol, dave];
  const firstNft = await reader.readContract({ address: erc721, abi: DemoERC721.abi, functionName: 'nextTokenId' });
  const branch: Branch = { blockHashes: [], transactions: [], deployed: null };
  for (let k = 0; k < length; k++) {
    const multiId = 20n + BigInt(k % 3);
    const calls: Call[] = [
      { from: alice, to: erc20, data: call(DemoERC20.abi, 'transfer', [recipient, parseEther(String((k + 1) * (replaced ? 3 : 7)))]) },
      { from: deployer, to: erc721, data: call(DemoERC721.abi, 'mint', [minter]) },
      { from: deployer, to: erc1155, data: call(DemoERC1155.abi, 'mint', [minter, multiId, replaced ? 5n : 9n, '0x']) },
      {
        from: deployer,
        to: caller,
        data: call(DemoCaller.abi, 'split', [replaced ? payees.slice(0, 2) : payees.slice(2, 5)]),
        value: parseEther(replaced ? '0.2' : '0.3'),
      },
    ];
    if (k > 0) {
      calls.push(
        { from: minter, to: erc721, data: call(DemoERC721.abi, 'transferFrom', [minter, recipient, firstNft + BigInt(k - 1)]) },
        {
          from: minter,
          to: erc1155,
          data: call(DemoERC1155.abi, 'safeTransferFrom', [minter, recipient, 20n + BigInt((k - 1) % 3), 2n, '0x']),
        },
      );
    }
    if (replaced) {
      calls.push(
        { from: deployer, to: caller, data: call(DemoCaller.abi, 'spawn', []), value: 1000n },
        { from: deployer, to: caller, data: call(DemoCaller.abi, 'mintAndSend', [erc20, minter, parseEther('11')]) },
      );
    } else if (k === 0) {
      const salt = keccak256(stringToHex(`reorg round ${round}`));
      calls.push(
        { from: deployer, to: caller, data: call(DemoCaller.abi, 'spawn2', [salt]), value: 500n },
        { from: bob, to: erc20, data: call(DemoERC20.abi, 'burn', [parseEther('1')]) },
      );
    }
    if (replaced && k === 0) {
      const sentBefore = calls.filter((c) => c.from === deployer).length;
      const nonce = BigInt(await client.request<Hex>('eth_getTransactionCount', [deployer, 'pending'])) + BigInt(sentBefore);
      branch.deployed = getContractAddress({ from: deployer, nonce });
      calls.push(
        { from: deployer, data: DemoERC20.bytecode },
        { from: deployer, to: branch.deployed, data: call(DemoERC20.abi, 'mint', [alice, parseEther('42')]) },
      );
    }
    if (!replaced && k === 0 && replacedDeployment !== null) calls.push({ from: alice, to: replacedDeployment, value: 1n });
    branch.transactions.push(...(await mineBlock(calls)));
    branch.blockHashes.push((await nodeHead()).hash);
  }
  return branch;
}

/**
 * Asserts that the live index answers every request as a fresh index of the chain up to `head` does,
 * about everything either index knows of and the `extra` subjects; returns the live answers.
 */
async function compareWithCleanIndex(
  head: { number: bigint; hash: Hex },
  extra: ChainSubjects,
): Promise<{ liveSnapshot: EndpointSnapshot; subjects: ChainSubjects }> {
  const clean = await startPipeline(head.number);
  try {
    await clean.indexer.done;
    await waitUntilSettled(clean, head);
    const subjects = mergeSubjects(await indexedSubjects(live.db.pool), await indexedSubjects(clean.db.pool), extra);
    const [liveSnapshot, cleanSnapshot] = await Promise.all([
      collectEndpointSnapshot(injectedApi(live.app), subjects),
      collectEndpointSnapshot(injectedApi(clean.app), subjects),
    ]);
    // The lost blocks are listed by the live index alone; reorgRound checks that list itself.
    const differences = snapshotDifferences(liveSnapshot, cleanSnapshot).filter((path) => !blockListsOfLostBlocks.includes(path));
    assert.deepEqual(
      differences.slice(0, 10).map((path) => `${path} ${firstDifference(liveSnapshot.get(path), cleanSnapshot.get(path))}`),
      [],
      `${differences.length} of ${cleanSnapshot.size} answers differ from a clean index`,
    );
    return { liveSnapshot, subjects };
  } finally {
    await stopPipeline(clean);
  }
}

/** No row derived from a block that lost consensus is left, in any table. */
async function assertNoRowsOfLostBlocks(db: TestDatabase): Promise<void> {
  for (const table of ['transactions', 'token_transfers', 'internal_transactions', 'withdrawals', 'block_rewards']) {
    const { rows } = await db.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ${table} t JOIN blocks b ON b.hash = t.block_hash WHERE NOT b.consensus`,
    );
    assert.equal(rows[0]!.n, 0, `${table} has no rows of blocks that lost consensus`);
  }
}

const zero = '0x0000000000000000000000000000000000000000';

/** What the node says at its head about the demo tokens: every positive balance, holder counts, supplies. */
async function nodeTokenState(subjects: ChainSubjects) {
  const { erc20, erc721, erc1155 } = scenario.contracts;
  const ids1155 = subjects.instances.filter((i) => i.token === erc1155.toLowerCase()).map((i) => BigInt(i.id));
  const balances = new Map<string, Map<string, bigint>>();
  const holders = new Map<string, number>();
  for (const address of subjects.addresses as Address[]) {
    if (address === zero) continue;
    const held = new Map<string, bigint>();
    const hold = (token: Address, id: bigint | null, value: bigint) => {
      if (value > 0n) held.set(`${token.toLowerCase()}:${id ?? ''}`, value);
    };
    hold(erc20, null, await reader.readContract({ address: erc20, abi: DemoERC20.abi, functionName: 'balanceOf', args: [address] }));
    hold(erc721, null, await reader.readContract({ address: erc721, abi: DemoERC721.abi, functionName: 'balanceOf', args: [address] }));
    for (const id of ids1155) {
      const balance = await reader.readContract({ address: erc1155, abi: DemoERC1155.abi, functionName: 'balanceOf', args: [address, id] });
      hold(erc1155, id, balance);
    }
    balances.set(address, held);
    for (const token of new Set([...held.keys()].map((key) => key.split(':')[0]!))) holders.set(token, (holders.get(token) ?? 0) + 1);
  }
  const totalSupply = await reader.readContract({ address: erc20, abi: DemoERC20.abi, functionName: 'totalSupply' });
  const nextNftId = await reader.readContract({ address: erc721, abi: DemoERC721.abi, functionName: 'nextTokenId' });
  const owners = new Map<bigint, string>();
  for (let id = 1n; id < nextNftId; id++) {
    const owner = await reader
      .readContract({ address: erc721, abi: DemoERC721.abi, functionName: 'ownerOf', args: [id] })
      .catch(() => null);
    // A burnt id's last transfer went to the zero address.
    owners.set(id, owner?.toLowerCase() ?? zero);
  }
  return { balances, holders, totalSupply, owners };
}

/** Balances, holder counts and the total supply served by E1, and the NFT owners stored, are the node's. */
async function assertTokenStateMatchesNode(db: TestDatabase, liveSnapshot: EndpointSnapshot, subjects: ChainSubjects): Promise<void> {
  const { erc20, erc721, erc1155 } = scenario.contracts;
  const demoTokens = [erc20, erc721, erc1155].map((a) => a.toLowerCase());
  const node = await nodeTokenState(subjects);
  for (const [address, expected] of node.balances) {
    const items = (liveSnapshot.get(`/api/v2/addresses/${address}/tokens?type=`) as { items: any[] }).items.filter((item) =>
      demoTokens.includes(item.token.address_hash.toLowerCase()),
    );
    const key = (item: any) => `${item.token.address_hash.toLowerCase()}:${item.token_id ?? ''}`;
    const served = new Map<string, bigint>(items.map((item) => [key(item), BigInt(item.value)]));
    assert.deepEqual(served, expected, `E1 balances of ${address}`);
    for (const { token } of items) {
      const holders = node.holders.get(token.address_hash.toLowerCase());
      assert.equal(token.holders_count, String(holders), `holders_count of ${token.address_hash}`);
      if (token.type === 'ERC-20') assert.equal(token.total_supply, node.totalSupply.toString(), 'ERC-20 total supply');
    }
  }
  const { rows } = await db.pool.query<{ id: string; owner: string | null }>(
    `SELECT token_id::text AS id, '0x' || encode(owner, 'hex') AS owner FROM token_instances WHERE token_address = $1`,
    [Buffer.from(erc721.slice(2), 'hex')],
  );
  assert.deepEqual(new Map(rows.map((r) => [BigInt(r.id), r.owner])), node.owners, 'ERC-721 owners');
}

before(async () => {
  anvil = await startAnvil();
  scenario = await runScenario(anvil.rpcUrl);
  client = createRpcClient({ url: anvil.rpcUrl });
  reader = createPublicClient({ transport: http(anvil.rpcUrl) });
  // Blocks are mined by the test alone, each holding exactly the transactions sent for it.
  await client.request('evm_setAutomine', [false]);
  live = await startPipeline(null);
  await live.indexer.caughtUp;
});
after(async () => {
  if (live) await stopPipeline(live);
  await anvil?.stop();
});

/**
 * Mines a branch of `depth` blocks and lets the live pipeline index it, then reverts the node and mines
 * a longer, different branch; checks that the live index answers as a clean index of the final chain
 * and that nothing of the replaced branch is served. `whileReverted` runs with the node reverted, before
 * the final branch is mined; the replaced branch is fully indexed and traced before the node leaves it.
 */
async function reorgRound(
  round: number,
  depth: number,
  options: { beforeRevert?: { traces?: boolean; nfts?: boolean }; whileReverted?: () => Promise<void> } = {},
): Promise<void> {
  const snapshotId = await client.request<Hex>('evm_snapshot', []);
  const replaced = await mineBranch('replaced', round, depth, null);
  await waitUntilSettled(live, await nodeHead(), options.beforeRevert);
  assert.equal(await client.request<boolean>('evm_revert', [snapshotId]), true);
  await options.whileReverted?.();
  const final = await mineBranch('final', round, depth + 1, replaced.deployed);
  const head = await nodeHead();
  await waitUntilSettled(live, head);
  assert.equal(live.indexer.status.phase, 'following');

  const lostTransactions = replaced.transactions.filter((hash) => !final.transactions.includes(hash));
  assert.ok(
    lostTransactions.length >= depth * 4,
    `the replaced branch had transactions of its own: ${lostTransactions.length}, at least ${depth * 4}`,
  );
  const lostSubjects: ChainSubjects = {
    addresses: replaced.deployed === null ? [] : [replaced.deployed],
    tokens: [],
    instances: [],
    transactions: lostTransactions,
    blocks: [],
  };
  const { liveSnapshot, subjects } = await compareWithCleanIndex(head, lostSubjects);

  // type=reorg lists the replaced blocks (and those of earlier rounds), newest first, as lost.
  const lostList = liveSnapshot.get(blockListsOfLostBlocks[0]!) as { items: { hash: string; type: string }[] };
  const listedLost = lostList.items.map((block) => block.hash);
  for (const hash of replaced.blockHashes) assert.ok(listedLost.includes(hash.toLowerCase()), `${hash} is listed by type=reorg`);
  assert.ok(lostList.items.every((block) => block.type === 'reorg'));
  const served = JSON.stringify(
    [...liveSnapshot].filter(([path]) => !blockListsOfLostBlocks.includes(path)).map(([, answer]) => answer),
  ).toLowerCase();
  for (const hash of [...lostTransactions, ...replaced.blockHashes]) {
    assert.ok(!served.includes(hash.toLowerCase()), `${hash} of the replaced branch is served nowhere`);
  }
  for (const hash of lostTransactions) {
    assert.equal((liveSnapshot.get(`/api/v2/transactions/${hash}/raw-trace`) as { status: number }).status, 404);
  }
  const lostBlocks = await live.db.pool.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM blocks WHERE NOT consensus AND hash = ANY($1::bytea[])',
    [replaced.blockHashes.map((h) => Buffer.from(h.slice(2), 'hex'))],
  );
  assert.equal(lostBlocks.rows[0]!.n, depth, 'the replaced blocks are kept as non-consensus');
  await assertNoRowsOfLostBlocks(live.db);
  assert.deepEqual(await instanceTransferCountMismatches(live.db.pool), [], 'every NFT id counts the transfers of the final chain');
  assert.deepEqual(await dailyFigureMismatches(live.db.pool), [], 'the daily figures are those of the final chain');
  await assertTokenStateMatchesNode(live.db, liveSnapshot, subjects);
}

for (const [round, depth] of depths.entries()) {
  test(`a reorg of depth ${depth} while following the head leaves every endpoint as a clean index of the final chain`, async () => {
    await reorgRound(round, depth);
  });
}

test('NFT metadata read while the node was on the replaced branch is read again after the reorg', async () => {
  // The NFT ids minted on the replaced branch are read only once the node has left that branch, where
  // they do not exist: their tokenURI call fails. The final branch mints the same ids.
  await live.nftStage.stop();
  await reorgRound(depths.length, 3, {
    beforeRevert: { nfts: false },
    whileReverted: async () => {
      live.nftStage = startNftStage(live.db);
      await waitUntilNftsRead(live);
    },
  });
});

test('the trace stage goes on to the new branch when blocks it was tracing lose consensus', async () => {
  // The replaced branch is indexed but not yet traced when the node leaves it: the stage asks the node
  // for the traces of blocks it no longer has, and must not keep asking once they lost consensus.
  await live.traceStage.stop();
  await reorgRound(depths.length + 1, 3, {
    beforeRevert: { traces: false },
    whileReverted: async () => {
      const warnings: string[] = [];
      live.traceStage = await startTracing(live.db, pino({ level: 'warn' }, { write: (line: string) => void warnings.push(line) }));
      await waitFor(async () => warnings.some((w) => w.includes('tracing blocks')), 'the trace stage fails to trace the replaced blocks', {
        timeoutMs: WAIT_MS,
      });
    },
  });
});

test('a reorg deeper than maxReorgDepth stops the indexer with ReorgTooDeepError and leaves the database as it was', async () => {
  const db = await createTestDatabase();
  const options = await testIndexerOptions(db, client, null, { maxReorgDepth: 3 });
  const indexer = startIndexer(options);
  try {
    await indexer.caughtUp;
    const snapshotId = await client.request<Hex>('evm_snapshot', []);
    const { alice, bob } = scenario.accounts;
    for (let i = 0; i < 4; i++) await mineBlock([{ from: alice, to: bob, value: BigInt(i + 1) }]);
    await waitFor(
      async () => {
        const { rows } = await db.pool.query<{ hash: Buffer }>('SELECT hash FROM blocks WHERE consensus ORDER BY number DESC LIMIT 1');
        return rows[0] !== undefined && `0x${rows[0].hash.toString('hex')}` === (await nodeHead()).hash;
      },
      'the branch about to be replaced is indexed',
      { timeoutMs: WAIT_MS },
    );
    const before = await snapshotDatabase(db.pool);
    assert.equal(await client.request<boolean>('evm_revert', [snapshotId]), true);
    for (let i = 0; i < 5; i++) await mineBlock([{ from: bob, to: alice, value: BigInt(i + 1) }]);
    await assert.rejects(indexer.done, ReorgTooDeepError);
    assertSameSnapshot(await snapshotDatabase(db.pool), before, 'after the reorg too deep to follow');
  } finally {
    await indexer.stop();
    await db.drop();
  }
});
