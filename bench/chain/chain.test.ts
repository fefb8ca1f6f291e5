import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { detectCapabilities } from '../../src/chain/capabilities.js';
import { createContractCaller } from '../../src/chain/contract-calls.js';
import { decodeBlock } from '../../src/chain/decode-block.js';
import { fetchBlocks } from '../../src/chain/fetch-blocks.js';
import { fetchBlockTraces } from '../../src/chain/fetch-traces.js';
import { createRpcClient } from '../../src/chain/rpc.js';
import { readTokenMetadata } from '../../src/chain/token-metadata.js';
import { readTokenUris } from '../../src/chain/token-uri.js';
import { createTestDatabase, bytea, type TestDatabase } from '../../test/support/database.js';
import { endpoints, findKeys, pageSize } from '../api/cases.js';
import { createChainGenerator } from './generate.js';
import { erc1155, erc20 } from './keys.js';
import { loadBenchChain } from './load.js';
import { startBenchNode, type BenchNode } from './node-process.js';
import { chainShape, chainShapes } from './scale.js';

/** The small scale's chain cut to its first blocks: every kind of block, quickly. */
const BLOCKS = 400;
const chain = createChainGenerator(chainShape('small', BLOCKS));

describe('the generated chain', () => {
  it('is the same on every run, block by block', () => {
    const again = createChainGenerator(chainShape('small', BLOCKS));
    for (const number of [0, 1, 50, 399]) assert.deepEqual(again.block(number), chain.block(number));
  });

  it('links each block to the one before and decodes with the indexer’s decoder', () => {
    for (let number = 1; number < BLOCKS; number++) {
      const { block, receipts } = chain.block(number);
      assert.equal(block.parentHash, chain.block(number - 1).block.hash);
      const bundle = decodeBlock({ number: BigInt(number), block, receipts });
      assert.equal(bundle.transactions.length, chainShapes.small.transactionsPerBlock);
      assert.equal(bundle.withdrawals.length, chainShapes.small.withdrawalsPerBlock);
      assert.ok(bundle.tokenTransfers.length >= 3, `block ${number} has the airdrop's transfers`);
    }
  });

  it('gives the cold keys exactly the cold blocks, more than a page of each list, and the hot ones most blocks', () => {
    const shape = chainShape('small', BLOCKS);
    const { keys } = chain;
    const cold = keys.coldAddress;
    let coldTransferBlocks = 0;
    let coldTransfers = 0;
    const coldCollections = new Set<string>();
    let coldInstanceTransfers = 0;
    let coldCalls = 0;
    let coldMinerBlocks = 0;
    let hotMinerBlocks = 0;
    let hotTransfers = 0;
    for (let number = 0; number < BLOCKS; number++) {
      const { block, receipts, traces } = chain.block(number);
      const bundle = decodeBlock({ number: BigInt(number), block, receipts });
      const ofCold = bundle.tokenTransfers.filter((t) => t.to === cold || t.from === cold);
      if (ofCold.length > 0) coldTransferBlocks++;
      coldTransfers += ofCold.length;
      for (const t of ofCold) if (t.to === cold && t.tokenType !== 'ERC-20') coldCollections.add(t.tokenAddress);
      coldInstanceTransfers += bundle.tokenTransfers.filter(
        (t) => t.tokenAddress === keys.coldInstance.token && t.tokenId === keys.coldInstance.id,
      ).length;
      coldCalls += traces.filter((f) => f.traceAddress.length > 0 && (f.action.to === cold || f.action.from === cold)).length;
      hotTransfers += bundle.tokenTransfers.filter((t) => t.to === keys.hotAddress || t.from === keys.hotAddress).length;
      if (bundle.block.miner === keys.coldMiner) coldMinerBlocks++;
      if (bundle.block.miner === keys.hotMiner) hotMinerBlocks++;
    }
    assert.ok(shape.coldBlocks > pageSize, `${shape.coldBlocks} cold blocks`);
    assert.equal(coldTransferBlocks, shape.coldBlocks);
    assert.equal(coldMinerBlocks, shape.coldBlocks);
    assert.equal(coldInstanceTransfers, shape.coldBlocks);
    assert.equal(coldCalls, shape.coldBlocks);
    assert.ok(coldCollections.size > pageSize, `the cold address received ${coldCollections.size} NFT collections`);
    assert.ok(coldTransfers > pageSize, `the cold address has ${coldTransfers} transfers`);
    assert.ok(hotMinerBlocks > 0.8 * (BLOCKS - shape.coldBlocks), `the hot miner validated ${hotMinerBlocks} blocks`);
    assert.ok(hotTransfers > 2 * BLOCKS, `the hot address has ${hotTransfers} transfers`);
  });

  it('spreads the cold blocks over a chain of any length', () => {
    for (const blocks of [30, 61, 5_000]) {
      const { keys, block } = createChainGenerator(chainShape('small', blocks));
      let coldMinerBlocks = 0;
      for (let number = 0; number < blocks; number++) if (block(number).block.miner === keys.coldMiner) coldMinerBlocks++;
      assert.equal(coldMinerBlocks, Math.min(blocks - 1, chainShapes.small.coldBlocks), `${blocks} blocks`);
    }
  });
});

describe('the generated chain’s node', () => {
  let node: BenchNode;
  before(async () => {
    node = await startBenchNode('small', BLOCKS);
  });
  after(() => node.stop());

  it('serves blocks, receipts, traces and token calls over HTTP as an Erigon node', async () => {
    const client = createRpcClient({ url: node.url });
    const capabilities = await detectCapabilities(client);
    assert.equal(capabilities.variant, 'erigon');
    assert.equal(capabilities.traceMethod, 'trace_block');
    assert.equal(capabilities.blockReceipts, true);

    const heavy = chainShapes.small.heavyTraceEvery / 2;
    const [fetched] = await fetchBlocks(client, capabilities, [BigInt(heavy)]);
    const bundle = decodeBlock(fetched!);
    const expected = chain.block(heavy);
    assert.equal(bundle.block.hash, expected.block.hash);
    const traces = await fetchBlockTraces(client, capabilities.traceMethod, {
      hash: bundle.block.hash,
      number: bundle.block.number,
      transactionHashes: bundle.transactions.map((t) => t.hash),
    });
    const frames = (hash: string) => traces.internalTransactions.filter((t) => t.transactionHash === hash).length;
    assert.equal(frames(chain.keys.heavyTraceTransaction), chainShapes.small.heavyTraceFrames + 1);
    assert.equal(frames(chain.keys.lightTraceTransaction), 2);

    const metadata = await readTokenMetadata(createContractCaller(client), [erc20(7), erc1155(3)]);
    assert.deepEqual(metadata.get(erc20(7)), { name: 'Token 7', symbol: 'T7', decimals: 18n, totalSupply: 10n ** 27n });
    assert.deepEqual(metadata.get(erc1155(3)), { name: null, symbol: null, decimals: null, totalSupply: null });
    const [uri] = await readTokenUris(createContractCaller(client), [{ token: chain.keys.hotInstance.token, type: 'ERC-721', id: 0n }]);
    assert.match(uri ?? '', /^data:application\/json;base64,/);
  });
});

describe('loadBenchChain', () => {
  let database: TestDatabase;
  before(async () => {
    database = await createTestDatabase();
  });
  after(() => database.drop());

  it('stores the chain with its traces and every token’s and NFT’s metadata read', async () => {
    const lines: string[] = [];
    await loadBenchChain({ scale: 'small', blocks: BLOCKS, databaseUrl: database.url, report: (line) => lines.push(line) });
    const count = async (sql: string, params: unknown[] = []) => Number((await database.pool.query<{ n: string }>(sql, params)).rows[0]!.n);
    assert.equal(await count('SELECT count(*) AS n FROM blocks WHERE consensus AND traced_at IS NOT NULL'), BLOCKS);
    assert.equal(await count('SELECT count(*) AS n FROM transactions'), BLOCKS * chainShapes.small.transactionsPerBlock);
    assert.equal(await count('SELECT count(*) AS n FROM tokens WHERE metadata_fetched_at IS NULL'), 0);
    assert.equal(await count('SELECT count(*) AS n FROM token_instances WHERE metadata IS NULL'), 0);
    const hotBalances = await count('SELECT count(*) AS n FROM address_token_balances WHERE address = $1 AND value > 0', [
      bytea(chain.keys.hotAddress),
    ]);
    assert.ok(hotBalances >= BLOCKS, `the hot address holds ${hotBalances} tokens`);
    for (const endpoint of endpoints.filter((e) => e.coldPath !== undefined)) {
      const [hot, cold] = await findKeys(database.pool, endpoint, chain.keys);
      assert.ok(hot !== undefined && cold !== undefined, `${endpoint.id} has a hot and a cold key`);
      assert.equal(cold.path, endpoint.coldPath!(chain.keys), `${endpoint.id} finds the generated cold key`);
      assert.ok(cold.items > pageSize && cold.items < hot.items, `${endpoint.id}: cold ${cold.items} items, hot ${hot.items}`);
    }
    for (const endpoint of endpoints.filter((e) => e.coldFullPage !== undefined)) {
      const [hot, cold] = await findKeys(database.pool, endpoint, chain.keys);
      assert.ok(hot !== undefined && cold !== undefined, `${endpoint.id} has a hot and a cold key`);
      const second = await count(`SELECT n FROM (${endpoint.keys}) g ORDER BY n DESC OFFSET 1 LIMIT 1`);
      assert.notEqual(cold.path, hot.path, `${endpoint.id}: the cold key is not the hot one`);
      assert.ok(
        cold.items >= Math.min(endpoint.coldFullPage!, second) && cold.items <= hot.items,
        `${endpoint.id}: cold ${cold.items} items (a full page is ${endpoint.coldFullPage}, the second key ${second}), hot ${hot.items}`,
      );
    }
    assert.ok(
      lines.some((line) => line.includes(`loaded ${BLOCKS} blocks`)),
      `no line says loaded ${BLOCKS} blocks:\n${lines.join('\n')}`,
    );
  });
});
