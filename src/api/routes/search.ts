import { Type } from '@sinclair/typebox';
import { searchTokens } from '../../store/read/search.js';
import { fetchSize, pageSize, searchTokensKeyset } from '../paging.js';
import type { ApiRoute } from '../route.js';
import { Nullable, StringEnum } from '../schemas.js';
import { SearchQueryParam, parseSearchQuery } from '../search-query.js';
import { exactMatches, tokenWords } from '../search.js';
import { SearchResultSchema, searchResultView } from '../views/search-result.js';

const Querystring = Type.Object({ q: SearchQueryParam, ...searchTokensKeyset.querystring });

const Response = Type.Object({
  items: Type.Array(SearchResultSchema),
  next_page_params: Nullable(
    Type.Object({ next_page_params_type: StringEnum(['search']), q: Type.String(), ...searchTokensKeyset.responseMembers }),
  ),
});

/**
 * Search, paged: the first page begins with the exact matches (an address and its token, a transaction
 * or block by hash, the consensus block of a height), then come the tokens whose words start with the
 * query's, which alone are paged. next_page_params carries q and the last token's keyset, as Blockscout's does.
 */
export const searchRoute: ApiRoute = (app, { db }) => {
  app.get('/api/v2/search', { schema: { querystring: Querystring, response: { 200: Response } } }, async (request) => {
    const query = parseSearchQuery(request.query.q);
    const after = searchTokensKeyset.parse(request.query);
    const others = after === null ? (await exactMatches(db, query, request.query.q)).flat() : [];
    const words = tokenWords(query);
    const tokens = words === null ? [] : await searchTokens(db, words, after, fetchSize);
    const shownTokens = tokens.slice(0, Math.max(0, pageSize - others.length));
    const last = shownTokens[shownTokens.length - 1];
    const more = others.length + tokens.length > pageSize;
    return {
      items: [...others, ...shownTokens.map((token) => ({ type: 'token' as const, token }))].map(searchResultView),
      next_page_params:
        more && last !== undefined
          ? { next_page_params_type: 'search' as const, q: request.query.q, ...searchTokensKeyset.after(last) }
          : null,
    };
  });
};
