import type { Address } from '../../src/model.js';
import { reverseNode } from '../../src/chain/ens.js';
import { replaceAddressTags } from '../../src/store/address-tags.js';
import { findIndexedHead } from '../../src/store/coin-balances.js';
import { saveEnsNames } from '../../src/store/ens-names.js';
import type { TestDatabase } from './database.js';

/** The primary name nameAndTag gives its address. */
export const fuzzEnsName = 'sextant-fuzz.eth';

/**
 * Gives an indexed address a primary ENS name and tags of both kinds, through the store's own writes
 * (as the ENS and tags stages would), so that the answers that embed it carry every member names and
 * tags fill. The chain behind it has no ENS: test/api/names-and-tags.test.ts reads real ones.
 */
export async function nameAndTag(db: TestDatabase, address: Address): Promise<void> {
  const head = await findIndexedHead(db.pool);
  if (head === null) throw new Error('nameAndTag needs an indexed chain');
  const record = { address, reverseNode: reverseNode(address), claimed: fuzzEnsName, claimedNode: null, name: fuzzEnsName };
  await saveEnsNames(db.pool, head, [{ address, mark: 0n, record }]);
  await replaceAddressTags(db.pool, [
    { address, slug: 'fuzz-public', name: 'Fuzz public', tagType: 'public', ordinal: 0, meta: null },
    { address, slug: 'fuzz-name', name: 'Fuzz name', tagType: 'name', ordinal: 1, meta: { tooltipDescription: 'a tag' } },
  ]);
}
