import { Type } from '@sinclair/typebox';
import {
  findAddressByEnsName,
  findBlockByNumber,
  findBlocksByHash,
  findTokenByExactName,
  findTransactionsByHash,
} from '../../store/read/search.js';
import type { Db } from '../../store/read/sql.js';
import type { ApiRoute } from '../route.js';
import { SearchQueryParam, type SearchQuery, ensNameQuery, parseSearchQuery } from '../search-query.js';
import { type Redirect, RedirectSchema, noRedirect, redirectView } from '../views/search-result.js';

const Querystring = Type.Object({ q: SearchQueryParam });

/**
 * The page a query leads straight to, as Blockscout's from_param finds it: any address; the transaction,
 * else the block, of a hash; the consensus block of a height (by its hash); the address whose primary
 * ENS name the query is; the token whose name or symbol the query is, in any case (its address page).
 * Anything else leads nowhere.
 */
async function redirectFor(db: Db, query: SearchQuery, text: string): Promise<Redirect> {
  switch (query.kind) {
    case 'address':
      return redirectView('address', query.address);
    case 'hash': {
      const [transaction] = await findTransactionsByHash(db, query.hash);
      if (transaction !== undefined) return redirectView('transaction', transaction.hash);
      const [block] = await findBlocksByHash(db, query.hash);
      return block === undefined ? noRedirect : redirectView('block', block.hash);
    }
    case 'number': {
      const block = await findBlockByNumber(db, query.number);
      return block === null ? noRedirect : redirectView('block', block.hash);
    }
    case 'words':
    case 'none': {
      const name = ensNameQuery(text);
      const named = name === null ? null : await findAddressByEnsName(db, name);
      if (named !== null) return redirectView('address', named);
      const token = await findTokenByExactName(db, text);
      return token === null ? noRedirect : redirectView('address', token);
    }
  }
}

export const searchCheckRedirectRoute: ApiRoute = (app, { db }) => {
  app.get('/api/v2/search/check-redirect', { schema: { querystring: Querystring, response: { 200: RedirectSchema } } }, async (request) =>
    redirectFor(db, parseSearchQuery(request.query.q), request.query.q.trim()),
  );
};
