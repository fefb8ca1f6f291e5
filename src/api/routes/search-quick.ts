import { Type } from '@sinclair/typebox';
import { searchTokens } from '../../store/read/search.js';
import { pageSize } from '../paging.js';
import type { ApiRoute } from '../route.js';
import { SearchQueryParam, balancedCounts, parseSearchQuery } from '../search-query.js';
import { exactMatches, tokenWords } from '../search.js';
import { SearchResultSchema, type SearchResultItem, searchResultView } from '../views/search-result.js';

const Querystring = Type.Object({ q: SearchQueryParam });

// As Blockscout's quick search, a query of fewer bytes finds nothing, but for a block number (which
// Blockscout's search reads as one whatever its length, and its frontend offers as a block to go to).
const minQueryBytes = 3;

/**
 * The search box's suggestions: up to 50 matches, unpaged, shared out between the kinds found (see
 * balancedCounts) so that many tokens do not hide the one block or address.
 */
export const searchQuickRoute: ApiRoute = (app, { db }) => {
  app.get(
    '/api/v2/search/quick',
    { schema: { querystring: Querystring, response: { 200: Type.Array(SearchResultSchema) } } },
    async (request) => {
      const query = parseSearchQuery(request.query.q);
      if (Buffer.byteLength(request.query.q) < minQueryBytes && query.kind !== 'number') return [];
      const categories: SearchResultItem[][] = await exactMatches(db, query, request.query.q);
      const words = tokenWords(query);
      if (words !== null) {
        categories.push((await searchTokens(db, words, null, pageSize)).map((token) => ({ type: 'token' as const, token })));
      }
      const counts = balancedCounts(
        categories.map((category) => category.length),
        pageSize,
      );
      return categories.flatMap((category, i) => category.slice(0, counts[i])).map(searchResultView);
    },
  );
};
