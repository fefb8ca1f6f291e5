import { findAddressByEnsName, findBlockByNumber, findBlocksByHash, findTransactionsByHash, isKnownAddress } from '../store/read/search.js';
import type { Db } from '../store/read/sql.js';
import { findToken } from '../store/read/tokens.js';
import { ensNameQuery, type SearchQuery } from './search-query.js';
import type { SearchResultItem } from './views/search-result.js';

/**
 * The matches of a query other than tokens found by their words, in Blockscout's categories: a token
 * contract and the address itself (an address the index knows) for an address; the transaction or
 * block of a hash; the consensus block of a height; the address whose primary ENS name the query is.
 * Other words have none.
 */
export async function exactMatches(db: Db, query: SearchQuery, raw: string): Promise<SearchResultItem[][]> {
  const name = ensNameQuery(raw);
  const named = name === null ? null : await findAddressByEnsName(db, name);
  const ens = name === null || named === null ? [] : [[{ type: 'ens_domain' as const, address: named, name }]];
  return [...ens, ...(await matchesOf(db, query))];
}

async function matchesOf(db: Db, query: SearchQuery): Promise<SearchResultItem[][]> {
  switch (query.kind) {
    case 'address': {
      const token = await findToken(db, query.address);
      const known = await isKnownAddress(db, query.address);
      return [
        [
          ...(token === null ? [] : [{ type: 'token' as const, token }]),
          ...(known ? [{ type: 'address' as const, address: query.address }] : []),
        ],
      ];
    }
    case 'hash': {
      const transactions = await findTransactionsByHash(db, query.hash);
      const blocks = await findBlocksByHash(db, query.hash);
      return [
        [
          ...transactions.map((transaction) => ({ type: 'transaction' as const, transaction })),
          ...blocks.map((block) => ({ type: 'block' as const, block })),
        ],
      ];
    }
    case 'number': {
      const block = await findBlockByNumber(db, query.number);
      return [block === null ? [] : [{ type: 'block' as const, block }]];
    }
    case 'words':
    case 'none':
      return [];
  }
}

/** The tokens a query finds by their words: those of a query of words, or of a number of three digits or more. */
export const tokenWords = (query: SearchQuery): string | null => (query.kind === 'words' || query.kind === 'number' ? query.words : null);
