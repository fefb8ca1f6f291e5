import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Address, Hex } from '../../src/model.js';
import { saveCoinBalances } from '../../src/store/coin-balances.js';
import { retractBlocksFrom } from '../../src/store/retract-blocks.js';
import { writeBlockBundles } from '../../src/store/write-blocks.js';
import { type TestDatabase, createTestDatabase } from '../support/database.js';
import { syntheticAddress, syntheticChain } from '../support/synthetic-chain.js';

let db: TestDatabase;
let hashes: Hex[];
const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((label) => syntheticAddress(`holder-${label}`)) as [Address, Address, Address, Address];

before(async () => {
  db = await createTestDatabase();
  const bundles = syntheticChain({ from: 0n, to: 10n, transactionsPerBlock: () => 1 });
  hashes = bundles.map((bundle) => bundle.block.hash);
  await writeBlockBundles(db.pool, bundles);
});
after(async () => {
  await db?.drop();
});

async function save(head: number, values: [Address, bigint][]): Promise<void> {
  const saved = await saveCoinBalances(
    db.pool,
    { number: BigInt(head), hash: hashes[head]! },
    values.map(([address, value]) => ({ address, mark: 0n, value })),
  );
  assert.equal(saved, true);
}

/** The current balances table, and what it must equal: each address's latest read in the history. */
async function currentAndLatest(): Promise<{ current: string[][]; latest: string[][] }> {
  const read = async (text: string) => (await db.pool.query<string[]>({ text, rowMode: 'array' })).rows;
  return {
    current: await read(
      `SELECT '0x' || encode(address, 'hex'), block_number::text, value::text FROM address_current_coin_balances ORDER BY 1`,
    ),
    latest: await read(
      `SELECT DISTINCT ON (address) '0x' || encode(address, 'hex'), block_number::text, value::text
       FROM address_coin_balances ORDER BY address, block_number DESC`,
    ),
  };
}

test("the current coin balance is each address's latest read, through reads in any order and a retraction", async () => {
  await save(4, [
    [a, 10n],
    [b, 20n],
    [c, 30n],
  ]);
  await save(8, [
    [a, 11n],
    [b, 0n],
    [d, 40n],
  ]);
  // A read at a lower head stored after a higher one: history gains a row, the current balance stays.
  await save(6, [[a, 99n]]);
  let { current, latest } = await currentAndLatest();
  assert.deepEqual(current, latest);
  assert.deepEqual(
    current,
    [
      [a, '8', '11'],
      [b, '8', '0'],
      [c, '4', '30'],
      [d, '8', '40'],
    ].sort((x, y) => (x[0]! < y[0]! ? -1 : 1)),
  );

  await retractBlocksFrom(db.pool, 7n);
  ({ current, latest } = await currentAndLatest());
  assert.deepEqual(current, latest);
  assert.deepEqual(
    current,
    [
      [a, '6', '99'],
      [b, '4', '20'],
      [c, '4', '30'],
    ].sort((x, y) => (x[0]! < y[0]! ? -1 : 1)),
    'back to the reads below the retracted heights; d had none',
  );
});
