import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ZERO_ADDRESS } from '../../src/model.js';
import { type TokenBalanceKey, readLedgerTokenBalancesAt } from '../../src/store/read/state-changes.js';
import { writeBlockBundles } from '../../src/store/write-blocks.js';
import { type TestDatabase, createTestDatabase } from '../support/database.js';
import { syntheticAddress, syntheticChain } from '../support/synthetic-chain.js';
import { type Move, withTransfers } from '../support/token-moves.js';

/**
 * The token ledger's balance of a key at a block, read from either end of the holder's transfers, is
 * the sum of the transfers the ledger keeps under that key's row up to the block: for a contract with
 * ERC-1155 transfers of two ids and ERC-20 transfers too, whose ERC-20 transfers the ledger keeps under
 * the row without id.
 */

const [alice, bob] = [syntheticAddress('alice'), syntheticAddress('bob')];
const [mixed, coin] = [syntheticAddress('mixed token'), syntheticAddress('coin')];

/** One transfer per entry, in blocks 1, 2... */
const moves: Move[][] = [
  [
    [mixed, 'ERC-1155', ZERO_ADDRESS, alice, 2n, 9n],
    [coin, 'ERC-20', ZERO_ADDRESS, alice, 100n, null],
  ],
  [[coin, 'ERC-20', alice, bob, 30n, null]],
  [[mixed, 'ERC-1155', alice, bob, 1n, 9n]],
  [
    [coin, 'ERC-20', bob, alice, 5n, null],
    [mixed, 'ERC-1155', ZERO_ADDRESS, bob, 3n, 7n],
  ],
  [[mixed, 'ERC-1155', bob, alice, 2n, 7n]],
  [[mixed, 'ERC-20', alice, bob, 4n, null]],
  [[coin, 'ERC-20', alice, bob, 1n, null]],
];

let db: TestDatabase;
before(async () => {
  db = await createTestDatabase();
  const bundles = withTransfers(syntheticChain({ from: 1n, to: BigInt(moves.length), transactionsPerBlock: () => 1 }), moves);
  await writeBlockBundles(db.pool, bundles);
});
after(async () => {
  await db?.drop();
});

test('a balance at every block is the sum of the transfers the ledger keeps under its row, from either end', async () => {
  const keys: TokenBalanceKey[] = [alice, bob].flatMap((holder) => [
    { holder, token: mixed, tokenId: 9n },
    { holder, token: mixed, tokenId: 7n },
    { holder, token: mixed, tokenId: null },
    { holder, token: coin, tokenId: null },
  ]);
  for (let block = 0; block <= moves.length + 1; block++) {
    const expected = keys.map((key) =>
      moves
        .slice(0, block)
        .flat()
        .filter(([token, type, , , , tokenId]) => token === key.token && (type === 'ERC-1155' ? tokenId : null) === key.tokenId)
        .reduce((sum, [, , from, to, amount]) => sum + (to === key.holder ? amount : 0n) - (from === key.holder ? amount : 0n), 0n),
    );
    assert.deepEqual(await readLedgerTokenBalancesAt(db.pool, keys, block), expected, `at block ${block}`);
  }
});
