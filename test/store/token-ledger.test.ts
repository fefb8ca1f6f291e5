import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Address, BlockBundle, TokenTransferRecord, TokenType } from '../../src/model.js';
import { retractBlocksFrom } from '../../src/store/retract-blocks.js';
import { findTokensWithSupplyMarks, saveTotalSupplies } from '../../src/store/token-metadata.js';
import { writeBlockBundles } from '../../src/store/write-blocks.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { syntheticAddress, syntheticChain } from '../support/synthetic-chain.js';

let db: TestDatabase;
before(async () => {
  db = await createTestDatabase();
});
after(async () => {
  await db.drop();
});

const zero: Address = '0x0000000000000000000000000000000000000000';
const alice = syntheticAddress('alice');
const bob = syntheticAddress('bob');
const coin = syntheticAddress('coin');
const art = syntheticAddress('art');
const items = syntheticAddress('items');

type Move = [token: Address, type: TokenType, from: Address, to: Address, amount: bigint, id: bigint | null];

/** Gives each block the transfers listed for it, carried by its first transaction. */
function withTransfers(bundles: BlockBundle[], moves: Move[][]): BlockBundle[] {
  return bundles.map((bundle, i) => {
    const transaction = bundle.transactions[0]!;
    const tokenTransfers: TokenTransferRecord[] = (moves[i] ?? []).map(([tokenAddress, tokenType, from, to, amount, tokenId], logIndex) => ({
      blockHash: bundle.block.hash,
      blockNumber: bundle.block.number,
      transactionHash: transaction.hash,
      transactionIndex: 0,
      logIndex,
      batchIndex: 0,
      tokenAddress,
      tokenType,
      from,
      to,
      amount,
      tokenId,
    }));
    return { ...bundle, tokenTransfers };
  });
}

async function balances(): Promise<string[]> {
  const { rows } = await db.pool.query<{ row: string }>(
    `SELECT concat_ws(' ', encode(address, 'hex'), encode(token_address, 'hex'), token_id, value) AS row
     FROM address_token_balances WHERE value <> 0 ORDER BY 1`,
  );
  return rows.map((r) => r.row);
}

async function tokenRows(): Promise<string[]> {
  const { rows } = await db.pool.query<{ row: string }>(
    `SELECT concat_ws(' ', encode(address, 'hex'), type, holders_count) AS row FROM tokens ORDER BY 1`,
  );
  return rows.map((r) => r.row);
}

async function owner(token: Address, id: bigint): Promise<string | null> {
  const { rows } = await db.pool.query<{ owner: string | null }>(
    `SELECT encode(owner, 'hex') AS owner FROM token_instances WHERE token_address = $1 AND token_id = $2`,
    [Buffer.from(token.slice(2), 'hex'), id.toString()],
  );
  return rows[0]?.owner === null || rows[0] === undefined ? null : `0x${rows[0].owner}`;
}

const hex = (a: Address) => a.slice(2);

test('balances, holder counts and owners follow the transfers, and a retraction moves them back', async () => {
  const chain = syntheticChain({ from: 1n, to: 3n, transactionsPerBlock: () => 1 });
  await writeBlockBundles(db.pool, withTransfers(chain.slice(0, 2), [
    [
      [coin, 'ERC-20', zero, alice, 100n, null],
      [art, 'ERC-721', zero, alice, 1n, 7n],
      [items, 'ERC-1155', zero, alice, 5n, 1n],
      [items, 'ERC-1155', zero, alice, 2n, 2n],
    ],
    [
      [coin, 'ERC-20', alice, bob, 100n, null],
    ],
  ]));
  const afterTwoBlocks = await balances();
  assert.deepEqual(afterTwoBlocks, [
    `${hex(alice)} ${hex(art)} 1`,
    `${hex(alice)} ${hex(items)} 1 5`,
    `${hex(alice)} ${hex(items)} 2 2`,
    `${hex(bob)} ${hex(coin)} 100`,
  ].sort());
  assert.deepEqual(await tokenRows(), [`${hex(art)} ERC-721 1`, `${hex(coin)} ERC-20 1`, `${hex(items)} ERC-1155 1`].sort());
  assert.equal(await owner(art, 7n), alice);

  await writeBlockBundles(db.pool, withTransfers(chain.slice(2), [[
    [art, 'ERC-721', alice, bob, 1n, 7n],
    [items, 'ERC-1155', alice, bob, 5n, 1n],
    [coin, 'ERC-20', bob, zero, 40n, null],
  ]]));
  assert.equal(await owner(art, 7n), bob);
  assert.deepEqual(await tokenRows(), [`${hex(art)} ERC-721 1`, `${hex(coin)} ERC-20 1`, `${hex(items)} ERC-1155 2`].sort());

  assert.equal(await retractBlocksFrom(db.pool, 3n), 1);
  assert.deepEqual(await balances(), afterTwoBlocks);
  assert.deepEqual(await tokenRows(), [`${hex(art)} ERC-721 1`, `${hex(coin)} ERC-20 1`, `${hex(items)} ERC-1155 1`].sort());
  assert.equal(await owner(art, 7n), alice);

  assert.equal(await retractBlocksFrom(db.pool, 1n), 2);
  assert.deepEqual(await balances(), []);
  assert.deepEqual(await tokenRows(), [`${hex(art)} ERC-721 0`, `${hex(coin)} ERC-20 0`, `${hex(items)} ERC-1155 0`].sort());
  assert.equal(await owner(art, 7n), null);
});

test('batches written out of order leave each NFT with the owner of its latest transfer', async () => {
  const chain = syntheticChain({ from: 40n, to: 41n, transactionsPerBlock: () => 1, salt: 'out-of-order' });
  const [earlier, later] = withTransfers(chain, [
    [[art, 'ERC-721', zero, alice, 1n, 9n]],
    [[art, 'ERC-721', alice, bob, 1n, 9n]],
  ]);
  await writeBlockBundles(db.pool, [later!]);
  await writeBlockBundles(db.pool, [earlier!]);
  assert.equal(await owner(art, 9n), bob);
  assert.ok((await balances()).includes(`${hex(bob)} ${hex(art)} 1`));
  assert.ok(!(await balances()).some((row) => row.startsWith(`${hex(alice)} ${hex(art)}`)));
});

test('mints and burns mark a token for a supply refresh; the refresh clears only the mark it read under', async () => {
  const gold = syntheticAddress('gold');
  const chain = syntheticChain({ from: 60n, to: 63n, transactionsPerBlock: () => 1, salt: 'supply' });
  const bundles = withTransfers(chain, [
    [[gold, 'ERC-20', zero, alice, 10n, null], [items, 'ERC-1155', zero, alice, 1n, 5n]],
    [[gold, 'ERC-20', alice, bob, 4n, null]],
    [[gold, 'ERC-20', bob, zero, 1n, null]],
    [[gold, 'ERC-20', alice, bob, 1n, null]],
  ]);
  const mark = async (token: Address) =>
    (await db.pool.query<{ mark: string | null }>('SELECT supply_mark::text AS mark FROM tokens WHERE address = $1', [Buffer.from(hex(token), 'hex')]))
      .rows[0]!.mark;
  const supply = async () =>
    (await db.pool.query<{ s: string | null }>('SELECT total_supply::text AS s FROM tokens WHERE address = $1', [Buffer.from(hex(gold), 'hex')])).rows[0]!.s;
  const goldMark = async () => (await findTokensWithSupplyMarks(db.pool, 10)).find((t) => t.address === gold);
  // Only tokens read once are refreshed; the metadata stage's first read covers the others.
  await writeBlockBundles(db.pool, bundles.slice(0, 2));
  assert.notEqual(await mark(gold), null);
  assert.equal(await goldMark(), undefined);
  await db.pool.query('UPDATE tokens SET metadata_fetched_at = now(), total_supply = 10');
  const seen = await goldMark();
  assert.equal(await mark(items), null, 'ERC-1155 contracts have no totalSupply()');

  // A burn written while the stage reads: its mark outlives the stage's save.
  await writeBlockBundles(db.pool, bundles.slice(2, 3));
  await saveTotalSupplies(db.pool, [{ ...seen!, totalSupply: 10n }]);
  assert.notEqual(await mark(gold), null);
  const again = await goldMark();
  await saveTotalSupplies(db.pool, [{ ...again!, totalSupply: 9n }]);
  assert.equal(await mark(gold), null);
  assert.equal(await supply(), '9');

  // A plain transfer does not mark; retracting a burn does, and a failed read keeps the value.
  await writeBlockBundles(db.pool, bundles.slice(3));
  assert.equal(await mark(gold), null);
  await retractBlocksFrom(db.pool, 62n);
  const retracted = await goldMark();
  await saveTotalSupplies(db.pool, [{ ...retracted!, totalSupply: null }]);
  assert.equal(await supply(), '9');
  assert.equal(await mark(gold), null);
});
