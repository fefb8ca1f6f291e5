import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import type { Address } from '../../src/model.js';
import { type TokenSearchKeyset, searchTokens, tokenSearchWords } from '../../src/store/read/search.js';
import { type TestDatabase, createTestDatabase } from '../support/database.js';

/**
 * searchTokens' pages against one sort of every match, on enough tokens that a query reaches both of
 * its ways: a page read in rank order (the top 500 tokens hold a page of matches), and every match
 * sorted (a rare word, or a common one whose tokens rank low).
 */

let db: TestDatabase;

interface Row {
  name: string | null;
  symbol: string;
  holders: number;
}

function rows(): Row[] {
  const out: Row[] = [];
  // 700 "coin" tokens ranked above every "filler": many matches, most of them at the top.
  for (let i = 0; i < 700; i++) {
    const name = i % 11 === 0 ? null : i % 13 === 0 ? 'Coin Same' : `Coin ${String(i).padStart(4, '0')}`;
    out.push({ name, symbol: `COIN${i}`, holders: 1 + (i % 7) });
  }
  // 600 "filler" tokens, none with a holder: many matches, none among the top 500.
  for (let i = 0; i < 600; i++) out.push({ name: `Filler ${String(i).padStart(4, '0')}`, symbol: `F${i}`, holders: 0 });
  // A few "rare" ones.
  for (let i = 0; i < 20; i++) out.push({ name: `Rare ${i}`, symbol: `R${i}`, holders: i % 3 });
  return out;
}

before(async () => {
  db = await createTestDatabase();
  const tokens = rows();
  await db.pool.query(
    `INSERT INTO tokens (address, type, name, symbol, holders_count)
     SELECT a, 'ERC-20', n, s, h FROM unnest($1::bytea[], $2::text[], $3::text[], $4::bigint[]) AS t(a, n, s, h)`,
    [tokens.map(() => randomBytes(20)), tokens.map((t) => t.name), tokens.map((t) => t.symbol), tokens.map((t) => t.holders)],
  );
  await db.pool.query('ANALYZE tokens');
});
after(async () => {
  await db?.drop();
});

/** Every match of the words, by one sort of them all. */
async function sorted(words: string): Promise<Address[]> {
  const { rows } = await db.pool.query<{ address: string }>(
    `SELECT '0x' || encode(address, 'hex') AS address FROM tokens k
     WHERE ${tokenSearchWords('k')} @@ to_tsquery('simple', $1)
     ORDER BY holders_count DESC, name ASC NULLS LAST, address`,
    [words],
  );
  return rows.map((r) => r.address as Address);
}

/** Every match of the words, page after page of 50 as the search route reads them (51 fetched). */
async function paged(words: string): Promise<Address[]> {
  const found: Address[] = [];
  let after: TokenSearchKeyset | null = null;
  for (;;) {
    const page = await searchTokens(db.pool, words, after, 51);
    found.push(...page.slice(0, 50).map((token) => token.address));
    if (page.length <= 50) return found;
    const last = page[49]!;
    after = { holdersCount: last.holdersCount, name: last.name, address: last.address };
  }
}

for (const words of ['coin:*', 'filler:*', 'coin:* & same:*', 'rare:*', 'coin1:*', 'nothing:*']) {
  test(`the pages of ${words} are its matches in rank order, without gaps or repeats`, async () => {
    const expected = await sorted(words);
    assert.deepEqual(await paged(words), expected);
  });
}

/** The matches among the 500 tokens ranked first: the tokens searchTokens reads in rank order before it sorts every match. */
async function matchesAtTop(words: string): Promise<number> {
  const { rows } = await db.pool.query<{ n: string }>(
    `SELECT count(*) AS n FROM (SELECT * FROM tokens k ORDER BY holders_count DESC, name ASC NULLS LAST, address LIMIT 500) k
     WHERE ${tokenSearchWords('k')} @@ to_tsquery('simple', $1)`,
    [words],
  );
  return Number(rows[0]!.n);
}

test('the queries above reach both ways: the top of the ranking holds a page of some, and too few of the others', async () => {
  assert.ok((await matchesAtTop('coin:*')) >= 51);
  assert.ok((await matchesAtTop('filler:*')) < 51 && (await sorted('filler:*')).length >= 500);
  assert.ok((await matchesAtTop('rare:*')) < 51);
});
