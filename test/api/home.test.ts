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
    // Every third transaction is a legacy one, without a priority fee; the others offer one that grows too.
    const transactions = bundle.transactions.map((t) => {
      const n = priced++;
      return {
        ...t,
        blockTimestamp: timestamp,
        gasPrice: GWEI + (n * GWEI) / 4n,
        maxPriorityFeePerGas: n % 3n === 0n ? null : (n * GWEI) / 8n,
      };
    });
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

/**
 * Blockscout's oracle on `bundles`: in each block, the percentiles of the priority fees offered,
 * averaged over the blocks; a speed is the next block's base fee (EIP-1559's rule on the newest
 * block) plus that mean, in gwei rounded up to two decimals.
 */
function expectedSpeed(bundles: BlockBundle[], fraction: number) {
  const byAmount = (x: bigint, y: bigint) => (x < y ? -1 : x > y ? 1 : 0);
  const perBlock = bundles
    .map((b) => b.transactions.flatMap((t) => (t.maxPriorityFeePerGas === null ? [] : [t.maxPriorityFeePerGas])).sort(byAmount))
    .filter((tips) => tips.length > 0);
  const mean = perBlock.reduce((sum, tips) => sum + Number(percentile(tips, fraction)), 0) / perBlock.length;
  const newest = bundles.at(-1)!.block;
  const target = newest.gasLimit / 2n;
  const change = (newest.baseFeePerGas! * (target > newest.gasUsed ? target - newest.gasUsed : newest.gasUsed - target)) / target / 8n;
  const nextBaseFee = newest.gasUsed > target ? newest.baseFeePerGas! + (change > 1n ? change : 1n) : newest.baseFeePerGas! - change;
  const gwei = (wei: number) => Math.ceil(wei / 1e7) / 100;
  return { base_fee: gwei(Number(nextBaseFee)), fiat_price: null, price: gwei(Number(nextBaseFee) + mean), priority_fee: gwei(mean) };
}

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

  const speed = (fraction: number) => ({ ...expectedSpeed(main, fraction), time: stats.average_block_time });
  const oracle = (await api.get('/api/v2/stats', { 'updated-gas-oracle': 'true' })).body;
  assert.deepEqual(oracle.gas_prices, { slow: speed(0.35), average: speed(0.6), fast: speed(0.9) });
  assert.ok(oracle.gas_prices.slow.priority_fee < oracle.gas_prices.fast.priority_fee, 'the percentiles differ');
  // Without the header, Blockscout's older shape: the prices alone.
  assert.deepEqual(stats.gas_prices, { slow: speed(0.35).price, average: speed(0.6).price, fast: speed(0.9).price });
  // Computed once for the oracle's period, then served as computed.
  assert.equal(oracle.gas_price_updated_at, stats.gas_price_updated_at);
  const updatedAt = Date.parse(stats.gas_price_updated_at);
  assert.ok(updatedAt >= before.getTime() - 1 && updatedAt <= Date.now(), stats.gas_price_updated_at);
  assert.ok(Number.isInteger(stats.gas_prices_update_in) && stats.gas_prices_update_in > 0 && stats.gas_prices_update_in <= 30_000);

  const used = main.reduce((n, b) => n + Number(b.block.gasUsed), 0);
  const limit = main.reduce((n, b) => n + Number(b.block.gasLimit), 0);
  assert.ok(Math.abs(stats.network_utilization_percentage - (used * 100) / limit) < 1e-9);
  // 30 blocks: fewer than the 101 Blockscout needs, so the mean interval of the newest (every interval spans one height).
  const span = Number(main[29]!.block.timestamp - main[0]!.block.timestamp);
  assert.equal(stats.average_block_time, Math.round((span * 1000) / 29));
  for (const name of ['coin_price', 'coin_image', 'market_cap', 'tvl', 'static_gas_price']) {
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
  const retracted = await getOk(api, '/api/v2/stats');
  assert.deepEqual(totalsOf(retracted), expectedTotals(main.slice(0, 25)));
  // The oracle's figures were of blocks the retraction took off: computed again at once, not served out their period.
  assert.deepEqual(retracted.gas_prices, {
    slow: expectedSpeed(main.slice(0, 25), 0.35).price,
    average: expectedSpeed(main.slice(0, 25), 0.6).price,
    fast: expectedSpeed(main.slice(0, 25), 0.9).price,
  });

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
      // But for the gas price oracle's figures, of the chain as it was when each API last computed them
      // (the live one's, a moment ago, before the branch came back: the oracle's period has not passed).
      const withoutOracle = ({ gas_price_updated_at, gas_prices_update_in, gas_prices, ...rest }: Record<string, unknown>) => {
        assert.equal(typeof gas_price_updated_at, 'string');
        assert.equal(typeof gas_prices_update_in, 'number');
        assert.equal(typeof gas_prices, 'object');
        return rest;
      };
      assert.deepEqual(withoutOracle(await getOk(api, '/api/v2/stats')), withoutOracle(await getOk(cleanApi, '/api/v2/stats')));
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
