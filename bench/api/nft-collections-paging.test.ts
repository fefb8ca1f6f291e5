import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type RunningApi, assertFullPages, collectList, startApi } from '../../test/api/http.js';
import { type TestDatabase, bytea, createTestDatabase } from '../../test/support/database.js';

// E3 reads one token type at a time: pages must run across the ERC-721 / ERC-1155 / ERC-404 boundaries
// without losing or repeating a collection, with each type filter, and count amounts as before.

const holder = `0x${'ab'.repeat(20)}`;
const token = (type: number, n: number) => `0x${type.toString(16).padStart(2, '0')}${n.toString(16).padStart(38, '0')}`;
const nftTypes = ['ERC-721', 'ERC-1155', 'ERC-404'] as const;
/** Collections of each type the holder has; ERC-20 balances are interleaved and must not show. */
const counts = { 'ERC-20': 40, 'ERC-721': 73, 'ERC-1155': 61, 'ERC-404': 7 } as const;

let db: TestDatabase;
let api: RunningApi;

before(async () => {
  db = await createTestDatabase();
  for (const [typeIndex, type] of (['ERC-20', ...nftTypes] as const).entries()) {
    for (let n = 0; n < counts[type]; n++) {
      const address = bytea(token(typeIndex, n));
      await db.pool.query('INSERT INTO tokens (address, type) VALUES ($1, $2)', [address, type]);
      if (type === 'ERC-20' || type === 'ERC-721') {
        await db.pool.query(
          'INSERT INTO address_token_balances (address, token_address, token_id, value, token_type) VALUES ($1, $2, NULL, $3, $4)',
          [bytea(holder), address, n + 1, type],
        );
      } else {
        // Two ids, one of them with a zero balance: ERC-1155 counts the positive one, ERC-404 both.
        for (const [id, value] of [
          [1, 5],
          [2, 0],
        ]) {
          await db.pool.query(
            'INSERT INTO address_token_balances (address, token_address, token_id, value, token_type) VALUES ($1, $2, $3, $4, $5)',
            [bytea(holder), address, id, value, type],
          );
        }
      }
    }
  }
  api = await startApi(db.pool);
});

after(async () => {
  await api.close();
  await db.drop();
});

const expected = (types: readonly (typeof nftTypes)[number][]) =>
  nftTypes
    .filter((type) => types.includes(type))
    .flatMap((type) =>
      Array.from({ length: counts[type] }, (_, n) => ({
        address: token(nftTypes.indexOf(type) + 1, n),
        type,
        amount: type === 'ERC-721' ? String(n + 1) : type === 'ERC-1155' ? '1' : '2',
      })),
    );

for (const types of [nftTypes, ['ERC-1155'], ['ERC-721', 'ERC-404']] as const) {
  test(`E3 pages run across token types in order (${types.join(',')})`, async () => {
    const list = await collectList(api, `/api/v2/addresses/${holder}/nft/collections`, { type: types.join(',') });
    assertFullPages(list);
    assert.deepEqual(
      list.items.map((item) => ({ address: item.token.address_hash.toLowerCase(), type: item.token.type, amount: item.amount })),
      expected(types),
    );
  });
}
