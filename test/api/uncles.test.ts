import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { BlockBundle, BlockRecord, Hex } from '../../src/model.js';
import { retractBlocksFrom } from '../../src/store/retract-blocks.js';
import { writeBlockBundles } from '../../src/store/write-blocks.js';
import { type TestDatabase, createTestDatabase } from '../support/database.js';
import { syntheticAddress, syntheticChain } from '../support/synthetic-chain.js';
import { type RunningApi, collectList, startApi } from './http.js';

// Blocks 1..70, each above 5 listing one uncle (of the height below it), 30 and 40 two: 67 uncles.
// Then 61..70 lose consensus and a fork replaces them, its block 62 naming the lost block 61 as its
// uncle (as a miner may: the lost block is a valid sibling of the new 61).

let db: TestDatabase;
let api: RunningApi;
let bundles: BlockBundle[];
let fork: BlockBundle[];

const uncleOf = (nephew: BlockRecord, i: number): BlockRecord => ({
  ...nephew,
  number: nephew.number - 1n,
  hash: `0x${(nephew.number * 10n + BigInt(i)).toString(16).padStart(64, 'c')}` as Hex,
  miner: syntheticAddress(`uncle miner ${i}`),
  timestamp: nephew.timestamp - 3n,
  gasUsed: 0n,
  uncles: [],
  transactionsCount: 0,
  transactionFees: 0n,
  burntFees: 0n,
  priorityFee: 0n,
});

function addUncles(bundle: BlockBundle, headers: BlockRecord[]): void {
  bundle.uncleBlocks = headers;
  bundle.block.uncles = headers.map((uncle) => uncle.hash);
}

before(async () => {
  db = await createTestDatabase();
  bundles = syntheticChain({ from: 1n, to: 70n, transactionsPerBlock: () => 1 });
  for (const bundle of bundles) {
    const { number } = bundle.block;
    if (number <= 5n) continue;
    const count = number === 30n || number === 40n ? 2 : 1;
    addUncles(
      bundle,
      Array.from({ length: count }, (_, i) => uncleOf(bundle.block, i)),
    );
  }
  await writeBlockBundles(db.pool, bundles);
  api = await startApi(db.pool);
});

after(async () => {
  await api?.close();
  await db?.drop();
});

const uncleHashes = (nephews: BlockBundle[]) =>
  nephews
    .flatMap((b) => b.uncleBlocks)
    .sort((a, b) => Number(b.number - a.number))
    .map((u) => u.hash);

test('type=uncle lists every uncle, highest first, as uncle blocks, paging by block number', async () => {
  const list = await collectList(api, '/api/v2/blocks', { type: 'uncle' });
  assert.equal(list.items.length, 67);
  assert.deepEqual(list.pageSizes, [50, 17]);
  assert.deepEqual(list.nextPageParams, [{ block_number: 22, items_count: 50 }]);
  const listed = list.items.map((item) => item.hash);
  assert.deepEqual(new Set(listed), new Set(uncleHashes(bundles)));
  assert.deepEqual(
    list.items.map((item) => item.height),
    [...list.items.map((item) => item.height)].sort((a, b) => b - a),
  );
  for (const item of list.items) assert.equal(item.type, 'uncle');
  const first = list.items[0];
  const uncle = bundles[69]!.uncleBlocks[0]!;
  assert.equal(first.hash, uncle.hash);
  assert.equal(first.height, 69);
  assert.equal(first.miner.hash.toLowerCase(), uncle.miner);
  assert.equal(first.transactions_count, 0);
  assert.equal(first.gas_used, '0');
  assert.equal(first.parent_hash, uncle.parentHash);
});

test('an uncle is neither a consensus block nor a reorg, and its height names the consensus block', async () => {
  const consensus = await collectList(api, '/api/v2/blocks');
  assert.equal(consensus.items.length, 70);
  assert.ok(consensus.items.every((item) => item.type === 'block'));
  assert.deepEqual((await api.get('/api/v2/blocks?type=reorg')).body, { items: [], next_page_params: null });
  const { body } = await api.get('/api/v2/blocks/29');
  assert.equal(body.hash, bundles[28]!.block.hash);
});

test('an uncle is found by its hash, as an uncle; its nephew lists its hash', async () => {
  const nephew = bundles[29]!;
  for (const uncle of nephew.uncleBlocks) {
    const { status, body } = await api.get(`/api/v2/blocks/${uncle.hash}`);
    assert.equal(status, 200);
    assert.equal(body.type, 'uncle');
    assert.equal(body.height, 29);
    assert.deepEqual(body.uncles_hashes, []);
    assert.deepEqual((await api.get(`/api/v2/blocks/${uncle.hash}/transactions`)).body, { items: [], next_page_params: null });
  }
  const { body } = await api.get('/api/v2/blocks/30');
  assert.deepEqual(
    body.uncles_hashes,
    nephew.uncleBlocks.map((uncle) => ({ hash: uncle.hash })),
  );
});

test('a retraction removes the uncles of the blocks it takes off; a lost block named as an uncle becomes one', async () => {
  await retractBlocksFrom(db.pool, 61n);
  fork = syntheticChain({ from: 61n, to: 70n, transactionsPerBlock: () => 0, salt: 'fork', parentHash: bundles[59]!.block.hash });
  const lost61 = bundles[60]!.block;
  addUncles(fork[1]!, [{ ...lost61, transactionsCount: 0 }]);
  await writeBlockBundles(db.pool, fork);

  const uncles = await collectList(api, '/api/v2/blocks', { type: 'uncle' });
  assert.deepEqual(new Set(uncles.items.map((item) => item.hash)), new Set([...uncleHashes(bundles.slice(0, 60)), lost61.hash]));
  for (const gone of uncleHashes(bundles.slice(60)).filter((hash) => hash !== lost61.hash)) {
    assert.equal((await api.get(`/api/v2/blocks/${gone}`)).status, 404, `${gone} went with its nephew`);
  }

  const reorg = await collectList(api, '/api/v2/blocks', { type: 'reorg' });
  assert.deepEqual(
    reorg.items.map((item) => item.hash),
    bundles
      .slice(61)
      .map((b) => b.block.hash)
      .reverse(),
    'the lost blocks but 61, now an uncle',
  );
  const { body } = await api.get(`/api/v2/blocks/${lost61.hash}`);
  assert.equal(body.type, 'uncle');
  // Its height has a consensus block again: the number names that one.
  assert.equal((await api.get('/api/v2/blocks/61')).body.hash, fork[0]!.block.hash);
});
