import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Address } from '../../src/model.js';
import { type TokenBalanceKeyset, listTokenBalances } from '../../src/store/read/token-balances.js';
import { type PendingInstance, findInstancesWithoutMetadata, saveInstanceMetadata } from '../../src/store/nft-metadata.js';
import { migrate } from '../../src/store/migrate.js';
import { retractBlocksFrom } from '../../src/store/retract-blocks.js';
import { findTokensWithSupplyMarks, saveTokenMetadata, saveTotalSupplies } from '../../src/store/token-metadata.js';
import { writeBlockBundles } from '../../src/store/write-blocks.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { instanceTransferCountMismatches } from '../support/stored-counters.js';
import { syntheticAddress, syntheticChain } from '../support/synthetic-chain.js';
import { type Move, withTransfers } from '../support/token-moves.js';

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

async function balances(): Promise<string[]> {
  const { rows } = await db.pool.query<{ row: string }>(
    `SELECT concat_ws(' ', encode(address, 'hex'), encode(token_address, 'hex'), token_id, value) AS row
     FROM address_token_balances WHERE value <> 0 ORDER BY 1`,
  );
  return rows.map((r) => r.row);
}

/** Each token's transfers_count, as `address count`. */
async function transferCounts(): Promise<string[]> {
  const { rows } = await db.pool.query<{ row: string }>(
    `SELECT concat_ws(' ', encode(address, 'hex'), transfers_count) AS row FROM tokens ORDER BY 1`,
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
  await writeBlockBundles(
    db.pool,
    withTransfers(chain.slice(0, 2), [
      [
        [coin, 'ERC-20', zero, alice, 100n, null],
        [art, 'ERC-721', zero, alice, 1n, 7n],
        [items, 'ERC-1155', zero, alice, 5n, 1n],
        [items, 'ERC-1155', zero, alice, 2n, 2n],
      ],
      [[coin, 'ERC-20', alice, bob, 100n, null]],
    ]),
  );
  const afterTwoBlocks = await balances();
  assert.deepEqual(
    afterTwoBlocks,
    [
      `${hex(alice)} ${hex(art)} 1`,
      `${hex(alice)} ${hex(items)} 1 5`,
      `${hex(alice)} ${hex(items)} 2 2`,
      `${hex(bob)} ${hex(coin)} 100`,
    ].sort(),
  );
  assert.deepEqual(await tokenRows(), [`${hex(art)} ERC-721 1`, `${hex(coin)} ERC-20 1`, `${hex(items)} ERC-1155 1`].sort());
  assert.deepEqual(await transferCounts(), [`${hex(art)} 1`, `${hex(coin)} 2`, `${hex(items)} 2`].sort());
  assert.equal(await owner(art, 7n), alice);

  await writeBlockBundles(
    db.pool,
    withTransfers(chain.slice(2), [
      [
        [art, 'ERC-721', alice, bob, 1n, 7n],
        [items, 'ERC-1155', alice, bob, 5n, 1n],
        [coin, 'ERC-20', bob, zero, 40n, null],
      ],
    ]),
  );
  assert.equal(await owner(art, 7n), bob);
  assert.deepEqual(await tokenRows(), [`${hex(art)} ERC-721 1`, `${hex(coin)} ERC-20 1`, `${hex(items)} ERC-1155 2`].sort());
  assert.deepEqual(await transferCounts(), [`${hex(art)} 2`, `${hex(coin)} 3`, `${hex(items)} 3`].sort());

  assert.equal(await retractBlocksFrom(db.pool, 3n), 1);
  assert.deepEqual(await balances(), afterTwoBlocks);
  assert.deepEqual(await tokenRows(), [`${hex(art)} ERC-721 1`, `${hex(coin)} ERC-20 1`, `${hex(items)} ERC-1155 1`].sort());
  assert.deepEqual(await transferCounts(), [`${hex(art)} 1`, `${hex(coin)} 2`, `${hex(items)} 2`].sort());
  assert.equal(await owner(art, 7n), alice);

  // Once no indexed transfer mentions them, the tokens are forgotten, as a clean index never knew them.
  assert.equal(await retractBlocksFrom(db.pool, 1n), 2);
  assert.deepEqual(await balances(), []);
  assert.deepEqual(await tokenRows(), []);
  assert.equal(await owner(art, 7n), null);
});

test('batches written out of order leave each NFT with the owner of its latest transfer', async () => {
  const chain = syntheticChain({ from: 40n, to: 41n, transactionsPerBlock: () => 1, salt: 'out-of-order' });
  const [earlier, later] = withTransfers(chain, [[[art, 'ERC-721', zero, alice, 1n, 9n]], [[art, 'ERC-721', alice, bob, 1n, 9n]]]);
  await writeBlockBundles(db.pool, [later!]);
  await writeBlockBundles(db.pool, [earlier!]);
  assert.equal(await owner(art, 9n), bob);
  const rows = await balances();
  assert.ok(rows.includes(`${hex(bob)} ${hex(art)} 1`), `bob holds the NFT; the balances: ${rows.join('; ')}`);
  assert.deepEqual(
    rows.filter((row) => row.startsWith(`${hex(alice)} ${hex(art)}`)),
    [],
    'alice holds none of it',
  );
});

test('mints and burns mark a token for a supply refresh; the refresh clears only the mark it read under', async () => {
  const gold = syntheticAddress('gold');
  const chain = syntheticChain({ from: 60n, to: 63n, transactionsPerBlock: () => 1, salt: 'supply' });
  const bundles = withTransfers(chain, [
    [
      [gold, 'ERC-20', zero, alice, 10n, null],
      [items, 'ERC-1155', zero, alice, 1n, 5n],
    ],
    [[gold, 'ERC-20', alice, bob, 4n, null]],
    [[gold, 'ERC-20', bob, zero, 1n, null]],
    [[gold, 'ERC-20', alice, bob, 1n, null]],
  ]);
  const mark = async (token: Address) =>
    (
      await db.pool.query<{ mark: string | null }>('SELECT supply_mark::text AS mark FROM tokens WHERE address = $1', [
        Buffer.from(hex(token), 'hex'),
      ])
    ).rows[0]!.mark;
  const supply = async () =>
    (
      await db.pool.query<{ s: string | null }>('SELECT total_supply::text AS s FROM tokens WHERE address = $1', [
        Buffer.from(hex(gold), 'hex'),
      ])
    ).rows[0]!.s;
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

test('NFT metadata read before a retraction is not saved over the request the retraction makes', async () => {
  const relic = syntheticAddress('relic');
  const chain = syntheticChain({ from: 90n, to: 91n, transactionsPerBlock: () => 1, salt: 'metadata-marks' });
  const [minted, moved] = withTransfers(chain, [
    [
      [relic, 'ERC-721', zero, alice, 1n, 1n],
      [relic, 'ERC-721', zero, alice, 1n, 2n],
    ],
    [[relic, 'ERC-721', alice, bob, 1n, 1n]],
  ]);
  const pendingIds = async () => (await findInstancesWithoutMetadata(db.pool, 1_000)).filter((i) => i.token === relic);
  const saveRead = (instances: PendingInstance[]) =>
    saveInstanceMetadata(
      db.pool,
      instances.map((i) => ({ ...i, tokenUri: null, metadata: null, error: 'read from the branch that lost' })),
    );

  await writeBlockBundles(db.pool, [minted!, moved!]);
  const [read1, read2] = await pendingIds();
  // A retraction of id 1's later transfer asks for its metadata again; id 2 is untouched.
  assert.equal(await retractBlocksFrom(db.pool, 91n), 1);
  await saveRead([read1!, read2!]);
  assert.deepEqual(
    (await pendingIds()).map((i) => i.id),
    [1n],
  );

  // A retraction that deletes the id, and a block that creates it again.
  const [reread] = await pendingIds();
  assert.equal(await retractBlocksFrom(db.pool, 90n), 1);
  await writeBlockBundles(db.pool, [minted!]);
  await saveRead([reread!]);
  assert.deepEqual(
    (await pendingIds()).map((i) => i.id),
    [1n, 2n],
  );

  // A read started after the last request is saved.
  await saveRead(await pendingIds());
  assert.deepEqual(await pendingIds(), []);
});

/**
 * The holder's E1 list read page by page, each page after the previous page's last row. A row listed
 * twice (each names a distinct balance) fails at once: the pages would not move on, and never end.
 */
async function listedInPages(holder: Address, pageSize: number): Promise<string[]> {
  const listed: string[] = [];
  let after: TokenBalanceKeyset | null = null;
  for (;;) {
    const rows = await listTokenBalances(db.pool, holder, [], after, pageSize);
    for (const row of rows.map((r) => `${r.token.name ?? '-'} ${r.token.type} ${hex(r.token.address)} ${r.tokenId ?? '-'} ${r.value}`)) {
      assert.ok(
        !listed.includes(row),
        `the page after ${JSON.stringify(after, (_, v) => (typeof v === 'bigint' ? `${v}` : v))} lists again: ${row}\nlisted before: ${listed.join('; ')}`,
      );
      listed.push(row);
    }
    if (rows.length < pageSize) return listed;
    const last = rows.at(-1)!;
    after = {
      value: last.value,
      tokenName: last.token.name,
      tokenType: last.token.type,
      tokenAddress: last.token.address,
      tokenId: last.tokenId,
    };
  }
}

/** Balance rows whose copy of their token's type or name differs from tokens. */
async function staleBalanceRows(): Promise<string[]> {
  const { rows } = await db.pool.query<{ row: string }>(
    `SELECT concat_ws(' ', encode(b.address, 'hex'), encode(b.token_address, 'hex'), b.token_type, b.token_name) AS row
     FROM address_token_balances b JOIN tokens k ON k.address = b.token_address
     WHERE b.token_type <> k.type OR b.token_name IS DISTINCT FROM k.name`,
  );
  return rows.map((r) => r.row);
}

const holdersCount = async (token: Address) =>
  (await db.pool.query<{ n: string }>('SELECT holders_count::text AS n FROM tokens WHERE address = $1', [Buffer.from(hex(token), 'hex')]))
    .rows[0]!.n;

test("balance rows follow their token's name and type: E1 pages in name order, and a retraction keeps them", async () => {
  const holder = syntheticAddress('e1-holder');
  const other = syntheticAddress('e1-other');
  const [named, renamed, plain, otherPlain, hybrid, multi] = ['named', 'renamed', 'plain', 'other-plain', 'hybrid', 'multi'].map((label) =>
    syntheticAddress(`e1-${label}`),
  ) as [Address, Address, Address, Address, Address, Address];
  const chain = syntheticChain({ from: 80n, to: 81n, transactionsPerBlock: () => 1, salt: 'e1-order' });
  const bundles = withTransfers(chain, [
    [
      ...[named, renamed, plain, otherPlain, hybrid].map((token): Move => [token, 'ERC-20', zero, holder, 10n, null]),
      [multi, 'ERC-1155', zero, holder, 10n, 1n],
      [multi, 'ERC-1155', zero, holder, 10n, 2n],
    ],
    [
      // A new holder of a token already named, the hybrid seen as an NFT too (so ERC-404), and one of
      // the holder's two ids of the ERC-1155 token sent away.
      [named, 'ERC-20', zero, other, 10n, null],
      [hybrid, 'ERC-721', zero, other, 1n, 5n],
      [multi, 'ERC-1155', holder, other, 10n, 1n],
    ],
  ]);
  await writeBlockBundles(db.pool, bundles.slice(0, 1));
  const metadata = (name: string) => ({ name, symbol: null, decimals: null, totalSupply: null });
  // Names that sort against the addresses' order, saved after the balances exist.
  await saveTokenMetadata(
    db.pool,
    new Map([
      [named, metadata('beta')],
      [renamed, metadata('alpha')],
    ]),
  );
  await writeBlockBundles(db.pool, bundles.slice(1));
  assert.deepEqual(await staleBalanceRows(), []);

  const [firstPlain, secondPlain] = [plain, otherPlain].sort();
  const expected = [
    `alpha ERC-20 ${hex(renamed)} - 10`,
    `beta ERC-20 ${hex(named)} - 10`,
    `- ERC-1155 ${hex(multi)} 2 10`,
    `- ERC-20 ${hex(firstPlain!)} - 10`,
    `- ERC-20 ${hex(secondPlain!)} - 10`,
    `- ERC-404 ${hex(hybrid)} - 10`,
  ];
  for (const pageSize of [1, 2, 4, 50]) assert.deepEqual(await listedInPages(holder, pageSize), expected, `pages of ${pageSize}`);
  assert.deepEqual(await listedInPages(other, 2), [
    `beta ERC-20 ${hex(named)} - 10`,
    `- ERC-1155 ${hex(multi)} 1 10`,
    `- ERC-404 ${hex(hybrid)} - 1`,
  ]);
  assert.equal(await holdersCount(multi), '2', 'the holder still holds id 2');
  assert.equal(await holdersCount(named), '2');

  // The token stays ERC-404 and named: the balances moved back keep that, in the same order.
  await retractBlocksFrom(db.pool, 81n);
  assert.deepEqual(await staleBalanceRows(), []);
  assert.deepEqual(await listedInPages(holder, 2), [...expected.slice(0, 2), `- ERC-1155 ${hex(multi)} 1 10`, ...expected.slice(2)]);
  assert.deepEqual(await listedInPages(other, 2), []);
  assert.deepEqual([await holdersCount(multi), await holdersCount(named), await holdersCount(hybrid)], ['1', '1', '1']);

  // A token read again under another name (its rows are found by the token, not as rows without one).
  await saveTokenMetadata(db.pool, new Map([[named, metadata('gamma')]]));
  assert.deepEqual(await staleBalanceRows(), []);
  assert.deepEqual((await listedInPages(holder, 50)).slice(0, 2), [expected[0], `gamma ERC-20 ${hex(named)} - 10`]);
});

test('the balance rows and holder counts do not depend on how blocks are grouped into writes', async () => {
  const carol = syntheticAddress('carol');
  const rowsOf = async (token: Address): Promise<string[]> => {
    const { rows } = await db.pool.query<{ row: string }>(
      `SELECT concat_ws(' ', encode(b.address, 'hex'), b.token_id, b.value, k.holders_count) AS row
       FROM address_token_balances b JOIN tokens k ON k.address = b.token_address
       WHERE b.token_address = $1 ORDER BY 1`,
      [Buffer.from(hex(token), 'hex')],
    );
    return rows.map((r) => r.row);
  };
  // Alice receives and passes on the same amount within the blocks, so in one write her delta is zero.
  const moves = (token: Address): Move[][] => [
    [[token, 'ERC-20', zero, bob, 10n, null]],
    [[token, 'ERC-20', bob, alice, 10n, null]],
    [[token, 'ERC-20', alice, carol, 10n, null]],
  ];
  const together = syntheticAddress('grouped together');
  const apart = syntheticAddress('grouped apart');
  await writeBlockBundles(
    db.pool,
    withTransfers(syntheticChain({ from: 100n, to: 102n, transactionsPerBlock: () => 1, salt: 'together' }), moves(together)),
  );
  for (const bundle of withTransfers(
    syntheticChain({ from: 110n, to: 112n, transactionsPerBlock: () => 1, salt: 'apart' }),
    moves(apart),
  )) {
    await writeBlockBundles(db.pool, [bundle]);
  }
  const expected = [`${hex(alice)} 0 1`, `${hex(bob)} 0 1`, `${hex(carol)} 10 1`].sort();
  assert.deepEqual(await rowsOf(apart), expected);
  assert.deepEqual(await rowsOf(together), expected);
});

test('each NFT id counts its transfer logs, whatever the order of the writes, and a retraction takes the lost ones off', async () => {
  const counted = syntheticAddress('counted art');
  const kinds = syntheticAddress('counted items');
  const chain = syntheticChain({ from: 200n, to: 203n, transactionsPerBlock: () => 1, salt: 'instance counts' });
  const bundles = withTransfers(chain, [
    [
      [counted, 'ERC-721', zero, alice, 1n, 20n],
      [kinds, 'ERC-1155', zero, alice, 1n, 5n],
      [kinds, 'ERC-1155', zero, alice, 1n, 6n],
      [kinds, 'ERC-1155', zero, alice, 1n, 5n],
    ],
    [
      [counted, 'ERC-721', alice, bob, 1n, 20n],
      [kinds, 'ERC-1155', alice, bob, 1n, 5n],
    ],
    [
      [kinds, 'ERC-1155', alice, bob, 1n, 6n],
      [counted, 'ERC-721', zero, bob, 1n, 21n],
    ],
    [[counted, 'ERC-721', bob, alice, 1n, 20n]],
  ]);
  // The first block's three ERC-1155 entries are one batch log that names id 5 twice: one transfer of id 5.
  bundles[0]!.tokenTransfers = bundles[0]!.tokenTransfers.map((t) =>
    t.tokenAddress === kinds ? { ...t, logIndex: 1, batchIndex: t.logIndex - 1 } : t,
  );
  const counts = async (): Promise<string[]> => {
    const { rows } = await db.pool.query<{ row: string }>(
      `SELECT concat_ws(' ', encode(token_address, 'hex'), token_id, transfers_count) AS row FROM token_instances
        WHERE token_address = ANY($1::bytea[]) ORDER BY 1`,
      [[counted, kinds].map((a) => Buffer.from(hex(a), 'hex'))],
    );
    return rows.map((r) => r.row);
  };
  await writeBlockBundles(db.pool, bundles.slice(2));
  await writeBlockBundles(db.pool, bundles.slice(0, 2));
  assert.deepEqual(await counts(), [`${hex(counted)} 20 3`, `${hex(counted)} 21 1`, `${hex(kinds)} 5 2`, `${hex(kinds)} 6 2`].sort());
  assert.deepEqual(await instanceTransferCountMismatches(db.pool), []);

  assert.equal(await retractBlocksFrom(db.pool, 202n), 2);
  assert.deepEqual(await counts(), [`${hex(counted)} 20 2`, `${hex(kinds)} 5 2`, `${hex(kinds)} 6 1`].sort());
  assert.deepEqual(await instanceTransferCountMismatches(db.pool), []);

  // Migration 017 counts the ids indexed before it.
  await db.pool.query(`ALTER TABLE token_instances DROP COLUMN transfers_count`);
  await db.pool.query(`DELETE FROM schema_migrations WHERE name = '017_instance_transfer_counts.sql'`);
  assert.deepEqual(await migrate(db.pool), ['017_instance_transfer_counts.sql']);
  assert.deepEqual(await counts(), [`${hex(counted)} 20 2`, `${hex(kinds)} 5 2`, `${hex(kinds)} 6 1`].sort());
  assert.deepEqual(await instanceTransferCountMismatches(db.pool), []);
});

test('a contract with ERC-20, then ERC-721, then ERC-20 transfers in one write is ERC-404, as in separate writes', async () => {
  const hybrid = syntheticAddress('hybrid-in-one-write');
  const bundles = withTransfers(syntheticChain({ from: 700n, to: 702n, transactionsPerBlock: () => 1, salt: 'hybrid' }), [
    [[hybrid, 'ERC-20', zero, alice, 10n, null]],
    [[hybrid, 'ERC-721', zero, bob, 1n, 5n]],
    [[hybrid, 'ERC-20', alice, bob, 1n, null]],
  ]);
  await writeBlockBundles(db.pool, bundles);
  const { rows } = await db.pool.query<{ type: string }>('SELECT type FROM tokens WHERE address = $1', [
    Buffer.from(hybrid.slice(2), 'hex'),
  ]);
  assert.equal(rows[0]?.type, 'ERC-404');
});

test('a contract with ERC-20 and ERC-1155 transfers is ERC-1155, and so are its balance rows, whichever kind is written first', async () => {
  const fungibleFirst = syntheticAddress('fungible, then ids');
  const idsFirst = syntheticAddress('ids, then fungible');
  const bundles = withTransfers(syntheticChain({ from: 710n, to: 711n, transactionsPerBlock: () => 1, salt: 'mixed kinds' }), [
    [
      [fungibleFirst, 'ERC-20', zero, alice, 10n, null],
      [idsFirst, 'ERC-1155', zero, alice, 1n, 3n],
    ],
    [
      [fungibleFirst, 'ERC-1155', zero, bob, 1n, 3n],
      [idsFirst, 'ERC-20', zero, bob, 10n, null],
    ],
  ]);
  for (const bundle of bundles) await writeBlockBundles(db.pool, [bundle]);
  const { rows } = await db.pool.query<{ row: string }>(
    `SELECT concat_ws(' ', encode(k.address, 'hex'), k.type, encode(b.address, 'hex'), b.token_id, b.token_type) AS row
       FROM tokens k JOIN address_token_balances b ON b.token_address = k.address
      WHERE k.address = ANY($1::bytea[]) AND b.address <> $2 ORDER BY 1`,
    [[fungibleFirst, idsFirst].map((a) => Buffer.from(hex(a), 'hex')), Buffer.from(hex(zero), 'hex')],
  );
  assert.deepEqual(
    rows.map((r) => r.row),
    [
      `${hex(fungibleFirst)} ERC-1155 ${hex(alice)} ERC-1155`,
      `${hex(fungibleFirst)} ERC-1155 ${hex(bob)} 3 ERC-1155`,
      `${hex(idsFirst)} ERC-1155 ${hex(alice)} 3 ERC-1155`,
      `${hex(idsFirst)} ERC-1155 ${hex(bob)} ERC-1155`,
    ].sort(),
  );
});
