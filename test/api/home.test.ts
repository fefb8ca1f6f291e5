import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import type { ApiOptions } from '../../src/api/server.js';
import { blockFees } from '../../src/chain/block-fees.js';
import type { Address, BlockBundle, IndexerStatus } from '../../src/model.js';
import { replacePendingTransactions } from '../../src/store/pending-transactions.js';
import { retractBlocksFrom } from '../../src/store/retract-blocks.js';
import { writeBlockBundles } from '../../src/store/write-blocks.js';
import { type TestDatabase, createTestDatabase } from '../support/database.js';
import { getOk } from '../support/http-client.js';
import { syntheticAddress, syntheticChain } from '../support/synthetic-chain.js';
import { type RunningApi, collectList, startApi } from './http.js';

// A synthetic chain of 30 blocks: the first 20 two days old, the last 10 from the last few minutes,
// each transaction at its own gas price. Every expected figure is computed here from the bundles.

const GWEI = 1_000_000_000n;
const now = Date.now();
const timestampOf = (number: bigint): bigint =>
  number < 20n ? BigInt(Math.floor(now / 1000)) - 2n * 86_400n + number : BigInt(Math.floor(now / 1000)) - 600n + (number - 20n) * 12n;

/** The synthetic chain's bundles, recent, with gas prices from 1 gwei up by a quarter per transaction of the chain. */
function chain(from: bigint, to: bigint, salt?: string, miner?: Address): BlockBundle[] {
  let priced = 0n;
  return syntheticChain({
    from,
    to,
    salt,
    transactionsPerBlock: (n) => Number(n % 4n),
    ...(miner === undefined ? {} : { miner: () => miner }),
  }).map((bundle) => {
    const timestamp = timestampOf(bundle.block.number);
    const transactions = bundle.transactions.map((t) => ({ ...t, blockTimestamp: timestamp, gasPrice: GWEI + (priced++ * GWEI) / 4n }));
    const fees = blockFees(transactions, bundle.block.baseFeePerGas);
    return { ...bundle, block: { ...bundle.block, timestamp, ...fees }, transactions };
  });
}

/** What the consensus chain `bundles` should total. */
function expectedTotals(bundles: BlockBundle[]) {
  const addresses = new Set<string>();
  for (const b of bundles) {
    addresses.add(b.block.miner);
    for (const t of b.transactions) for (const a of [t.from, t.to, t.createdContract]) if (a !== null) addresses.add(a);
  }
  return {
    total_blocks: String(bundles.length),
    total_transactions: String(bundles.reduce((n, b) => n + b.transactions.length, 0)),
    total_gas_used: String(bundles.reduce((n, b) => n + b.block.gasUsed, 0n)),
    total_addresses: String(addresses.size),
  };
}

const totalsOf = (stats: Record<string, unknown>) => ({
  total_blocks: stats.total_blocks,
  total_transactions: stats.total_transactions,
  total_gas_used: stats.total_gas_used,
  total_addresses: stats.total_addresses,
});

/** percentile_disc: the first value whose cumulative share reaches the fraction. */
const percentile = (sorted: bigint[], fraction: number): bigint => sorted[Math.max(0, Math.ceil(fraction * sorted.length) - 1)]!;

const main = chain(0n, 29n);
let db: TestDatabase;
let api: RunningApi;

before(async () => {
  db = await createTestDatabase();
  await writeBlockBundles(db.pool, main.slice(0, 15));
  await writeBlockBundles(db.pool, main.slice(15));
  api = await startApi(db.pool);
});

after(async () => {
  await api?.close();
  await db?.drop();
});

test('the main-page lists are the heads of /blocks and of E2', async () => {
  const blocks = await getOk(api, '/api/v2/main-page/blocks');
  assert.deepEqual(blocks, (await getOk(api, '/api/v2/blocks')).items.slice(0, 4));
  assert.deepEqual(
    blocks.map((b: { height: number }) => b.height),
    [29, 28, 27, 26],
  );
  const transactions = await getOk(api, '/api/v2/main-page/transactions');
  assert.deepEqual(transactions, (await getOk(api, '/api/v2/transactions')).items.slice(0, 6));
  assert.equal(transactions.length, 6);
});

test('stats: totals equal the full lists and the written chain; gas prices, utilisation and today from the blocks', async () => {
  const before = new Date();
  const stats = await getOk(api, '/api/v2/stats');
  assert.deepEqual(totalsOf(stats), expectedTotals(main));
  assert.equal(stats.total_blocks, String((await collectList(api, '/api/v2/blocks')).items.length));
  assert.equal(stats.total_transactions, String((await collectList(api, '/api/v2/transactions')).items.length));

  const dayStart = BigInt(Date.UTC(before.getUTCFullYear(), before.getUTCMonth(), before.getUTCDate()) / 1000);
  const today = main.filter((b) => b.block.timestamp >= dayStart);
  assert.equal(stats.transactions_today, String(today.reduce((n, b) => n + b.transactions.length, 0)));
  assert.equal(stats.gas_used_today, String(today.reduce((n, b) => n + b.block.gasUsed, 0n)));

  const perBlock = main
    .filter((b) => b.transactions.length > 0)
    .map((b) => b.transactions.map((t) => t.gasPrice!).sort((x, y) => (x < y ? -1 : x > y ? 1 : 0)));
  const mean = (fraction: number) => perBlock.reduce((sum, prices) => sum + Number(percentile(prices, fraction)), 0) / perBlock.length;
  const gwei = (wei: number) => Math.ceil(wei / 1e7) / 100;
  assert.deepEqual(stats.gas_prices, { slow: gwei(mean(0.35)), average: gwei(mean(0.6)), fast: gwei(mean(0.9)) });
  assert.ok(stats.gas_prices.slow < stats.gas_prices.fast, 'the percentiles differ');
  assert.equal(stats.gas_price_updated_at, new Date(Number(main[29]!.block.timestamp) * 1000).toISOString().replace('Z', '000Z'));

  const used = main.reduce((n, b) => n + Number(b.block.gasUsed), 0);
  const limit = main.reduce((n, b) => n + Number(b.block.gasLimit), 0);
  assert.ok(Math.abs(stats.network_utilization_percentage - (used * 100) / limit) < 1e-9);
  // 30 blocks: fewer than the 200 the average block time is taken over.
  assert.equal(stats.average_block_time, null);
  for (const name of ['coin_price', 'coin_image', 'market_cap', 'tvl', 'static_gas_price', 'gas_prices_update_in']) {
    assert.equal(stats[name], null, name);
  }
});

test('transactions/stats: the last 24 hours of blocks and the pool', async () => {
  await replacePendingTransactions(db.pool, [
    {
      hash: `0x${'5e'.repeat(32)}`,
      from: syntheticAddress('pending'),
      to: null,
      nonce: 0n,
      type: 0,
      value: 0n,
      gasLimit: 21_000n,
      gasPrice: GWEI,
      maxFeePerGas: null,
      maxPriorityFeePerGas: null,
      input: '0x',
    },
  ]);
  const stats = await getOk(api, '/api/v2/transactions/stats');
  const recent = main.slice(20).flatMap((b) => b.transactions);
  const fees = recent.reduce((sum, t) => sum + t.gasUsed * t.gasPrice!, 0n);
  assert.deepEqual(stats, {
    transactions_count_24h: String(recent.length),
    pending_transactions_count: '1',
    transaction_fees_sum_24h: String(fees),
    transaction_fees_avg_24h: String(fees / BigInt(recent.length)),
  });
  await replacePendingTransactions(db.pool, []);
});

test('the totals follow retractions and the branch that replaces them, as a clean index of the final chain has them', async () => {
  const forkMiner = syntheticAddress('fork miner');
  await retractBlocksFrom(db.pool, 25n);
  assert.deepEqual(totalsOf(await getOk(api, '/api/v2/stats')), expectedTotals(main.slice(0, 25)));

  // A branch mined by an address nothing else mentions, then retracted: that address no longer counts.
  const fork = chain(25n, 31n, 'fork', forkMiner).map((b, i) =>
    i === 0 ? { ...b, block: { ...b.block, parentHash: main[24]!.block.hash } } : b,
  );
  await writeBlockBundles(db.pool, fork);
  assert.deepEqual(totalsOf(await getOk(api, '/api/v2/stats')), expectedTotals([...main.slice(0, 25), ...fork]));
  await retractBlocksFrom(db.pool, 25n);
  assert.deepEqual(totalsOf(await getOk(api, '/api/v2/stats')), expectedTotals(main.slice(0, 25)));

  // The first branch comes back (its blocks regain consensus).
  await writeBlockBundles(db.pool, main.slice(25));
  const clean = await createTestDatabase();
  try {
    await writeBlockBundles(clean.pool, main);
    const cleanApi = await startApi(clean.pool);
    try {
      assert.deepEqual(await getOk(api, '/api/v2/stats'), await getOk(cleanApi, '/api/v2/stats'));
      assert.deepEqual(totalsOf(await getOk(api, '/api/v2/stats')), expectedTotals(main));
    } finally {
      await cleanApi.close();
    }
  } finally {
    await clean.drop();
  }
});

test('indexing status: blocks against the configured range and the catch-up target, traces against the backlog', async () => {
  const status = (path: RunningApi) => getOk(path, '/api/v2/main-page/indexing-status');
  await db.pool.query('UPDATE blocks SET traced_at = NULL');
  assert.deepEqual(await status(api), {
    finished_indexing: false,
    finished_indexing_blocks: true,
    indexed_blocks_ratio: 1,
    indexed_internal_transactions_ratio: 0,
  });
  await db.pool.query('UPDATE blocks SET traced_at = now() WHERE number < 20');
  assert.equal((await status(api)).indexed_internal_transactions_ratio, 0.66);
  await db.pool.query('UPDATE blocks SET traced_at = now()');
  assert.deepEqual(await status(api), {
    finished_indexing: true,
    finished_indexing_blocks: true,
    indexed_blocks_ratio: 1,
    indexed_internal_transactions_ratio: 1,
  });

  const catchingUp: IndexerStatus = {
    phase: 'backfilling',
    head: 119n,
    node: { available: true, error: null },
    database: { available: true, error: null },
    lastError: null,
    blocksIndexed: 30,
    transactionsIndexed: 0,
    batchSize: 10,
    newHeads: 'polling',
  };
  const done = { finished_indexing: true, finished_indexing_blocks: true, indexed_blocks_ratio: 1, indexed_internal_transactions_ratio: 1 };
  const others: [Omit<ApiOptions, 'pool'>, unknown][] = [
    // 30 of the 120 blocks up to the head the catch-up heads for; traces are reported once blocks are in.
    [
      { indexerStatus: catchingUp },
      { finished_indexing: false, finished_indexing_blocks: false, indexed_blocks_ratio: 0.25, indexed_internal_transactions_ratio: null },
    ],
    // Following, the target is the indexed head.
    [{ indexerStatus: { ...catchingUp, phase: 'following' } }, done],
    // Blocks from 10 on: those below do not make it more than done.
    [{ indexing: { firstBlock: 10n, tracesIndexed: true } }, done],
  ];
  for (const [options, expected] of others) {
    const other = await startApi(db.pool, options);
    try {
      assert.deepEqual(await status(other), expected);
    } finally {
      await other.close();
    }
  }
  const untraced = await startApi(db.pool, { indexing: { firstBlock: 0n, tracesIndexed: false } });
  try {
    await db.pool.query('UPDATE blocks SET traced_at = NULL');
    assert.deepEqual(await status(untraced), {
      finished_indexing: true,
      finished_indexing_blocks: true,
      indexed_blocks_ratio: 1,
      indexed_internal_transactions_ratio: null,
    });
  } finally {
    await untraced.close();
  }
  // A hole in the index: 25 of 30 blocks.
  await retractBlocksFrom(db.pool, 25n);
  await writeBlockBundles(db.pool, main.slice(29));
  assert.deepEqual(await status(api), {
    finished_indexing: false,
    finished_indexing_blocks: false,
    indexed_blocks_ratio: 0.86,
    indexed_internal_transactions_ratio: null,
  });
});

test('backend-version names the running version', async () => {
  const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
  assert.deepEqual(await getOk(api, '/api/v2/config/backend-version'), { backend_version: `Sextant v${version}` });
});
