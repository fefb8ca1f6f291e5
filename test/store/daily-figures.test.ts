import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { BlockBundle } from '../../src/model.js';
import { moveVerifiedContract, rebuildDailyFigures } from '../../src/store/daily-figures.js';
import { retractBlocksFrom } from '../../src/store/retract-blocks.js';
import { inTransaction } from '../../src/store/transaction.js';
import { writeBlockBundles } from '../../src/store/write-blocks.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { dailyFigureMismatches } from '../support/stored-counters.js';
import { storeVerification } from '../support/stored-verification.js';
import { syntheticAddress, syntheticChain } from '../support/synthetic-chain.js';

let db: TestDatabase;
before(async () => {
  db = await createTestDatabase();
});
after(async () => {
  await db.drop();
});

/** Blocks five hours apart, from a midnight on: a day holds five of them, with a gap of a day after block 9. */
function spreadOverDays(bundles: BlockBundle[]): BlockBundle[] {
  const midnight = 1_700_006_400n;
  return bundles.map((bundle) => {
    const n = bundle.block.number;
    const timestamp = midnight + n * 5n * 3600n + (n > 9n ? 86_400n : 0n);
    return {
      ...bundle,
      block: { ...bundle.block, timestamp },
      // Every third transaction creates a contract; of those, the ones at index 3 failed. The ones at
      // index 1 call with input; from block 8 on, the ones at index 2 come from a sender new there.
      transactions: bundle.transactions.map((t) => ({
        ...t,
        blockTimestamp: timestamp,
        to: t.index % 3 === 0 ? null : t.to,
        createdContract: t.index % 3 === 0 ? syntheticAddress(`created:${t.hash}`) : null,
        status: t.index === 3 ? 0 : 1,
        input: t.index === 1 ? '0xa9059cbb' : t.input,
        from: t.index === 2 && n >= 8n ? syntheticAddress('late sender') : t.from,
      })),
    };
  });
}

const chain = (from: bigint, to: bigint, fork?: { salt: string; parentHash: `0x${string}` }) =>
  spreadOverDays(syntheticChain({ from, to, transactionsPerBlock: (n) => Number(n % 5n) + (fork === undefined ? 0 : 2), ...fork }));

const figures = async () => (await db.pool.query('SELECT * FROM daily_figures ORDER BY day')).rows as unknown[];

test('the daily figures equal a GROUP BY over the indexed rows after writes out of order, a retraction, a new branch and a rebuild', async () => {
  const bundles = chain(0n, 14n);
  // A child before its parent, as a gap filled later: its interval comes with the parent, and its
  // senders' first day moves earlier.
  for (const batch of [bundles.slice(6, 12), bundles.slice(0, 4), bundles.slice(12), bundles.slice(4, 6)]) {
    await writeBlockBundles(db.pool, batch);
  }
  assert.deepEqual(await dailyFigureMismatches(db.pool), [], 'after the writes');
  const days = await figures();
  assert.equal(days.length, 3, 'three days with blocks, a day without between them');
  const { rows } = await db.pool.query<{ intervals: string; contracts: string; accounts: string }>(
    'SELECT sum(block_intervals) AS intervals, sum(new_contracts) AS contracts, max(active_accounts) AS accounts FROM daily_figures',
  );
  assert.equal(rows[0]!.intervals, '14', 'every block but the first has its interval');
  assert.ok(Number(rows[0]!.contracts) > 0 && Number(rows[0]!.accounts) > 1);
  const { rows: sums } = await db.pool.query<Record<string, string>>(
    `SELECT sum(transactions) AS transactions, sum(successful_transactions) AS successful, sum(native_transfers) AS native,
            sum(new_accounts) AS accounts, count(*) FILTER (WHERE new_accounts > 0) AS days_with_new, min(transaction_fees) AS fees,
            min(block_size) AS size, min(gas_limit) AS gas_limit, min(gas_prices) AS prices
     FROM daily_figures`,
  );
  const sum = sums[0]!;
  assert.ok(Number(sum.successful) < Number(sum.transactions) && Number(sum.native) < Number(sum.transactions));
  assert.equal(sum.accounts, '4', 'three senders and the late one');
  assert.equal(sum.days_with_new, '2', 'the late sender is new on the second day');
  assert.ok([sum.fees, sum.size, sum.gas_limit, sum.prices].every((v) => Number(v) > 0));

  await retractBlocksFrom(db.pool, 7n);
  assert.deepEqual(await dailyFigureMismatches(db.pool), [], 'after the retraction');
  await writeBlockBundles(db.pool, chain(7n, 16n, { salt: 'fork', parentHash: bundles[6]!.block.hash }));
  assert.deepEqual(await dailyFigureMismatches(db.pool), [], 'after the new branch');

  const kept = await figures();
  await inTransaction(db.pool, (client) => rebuildDailyFigures(client));
  assert.deepEqual(await figures(), kept, 'the bulk load rebuild gives the rows the writers kept');
});

test('the contracts verified per day equal a GROUP BY over the verified contracts, a re-verification counted on its new day only', async () => {
  const verifiedByDay = async () =>
    (
      await db.pool.query<{ day: string; contracts: string }>(
        'SELECT day::text, contracts::text FROM daily_verified_contracts ORDER BY day',
      )
    ).rows;
  const today = new Date().toISOString().slice(0, 10);
  const [first, second] = [syntheticAddress('verified one'), syntheticAddress('verified two')];
  await storeVerification(db.pool, first, 'job-1');
  await storeVerification(db.pool, second, 'job-2');
  await storeVerification(db.pool, first, 'job-3');
  assert.deepEqual(await dailyFigureMismatches(db.pool), []);
  assert.deepEqual(await verifiedByDay(), [{ day: today, contracts: '2' }], 'a re-verification the same day is not a new one');

  // As if the first had been verified two days ago: its re-verification today moves it.
  const twoDaysAgo = new Date(Date.now() - 2 * 86_400_000).toISOString().slice(0, 10);
  await inTransaction(db.pool, async (client) => {
    await client.query(`UPDATE verified_contracts SET verified_at = verified_at - interval '2 days' WHERE address = $1`, [
      Buffer.from(first.slice(2), 'hex'),
    ]);
    await moveVerifiedContract(client, today, twoDaysAgo);
  });
  assert.deepEqual(await dailyFigureMismatches(db.pool), []);
  assert.deepEqual(await verifiedByDay(), [
    { day: twoDaysAgo, contracts: '1' },
    { day: today, contracts: '1' },
  ]);
  await storeVerification(db.pool, first, 'job-4');
  assert.deepEqual(await dailyFigureMismatches(db.pool), []);
  assert.deepEqual(await verifiedByDay(), [{ day: today, contracts: '2' }]);
});
