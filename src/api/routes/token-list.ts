import { Type } from '@sinclair/typebox';
import { type TokenListOrder, listTokens } from '../../store/read/token-list.js';
import { type Parsed, parseChoice, requireValid } from '../filters.js';
import { fetchSize, nextPageParamsSchema, tokenListKeyset } from '../paging.js';
import type { ApiRoute } from '../route.js';
import { headChanges } from '../shared-answers.js';
import { prefixWords } from '../search-query.js';
import { parseTokenTypes, tokenTypes } from '../token-types.js';
import { TokenSchema, tokenView } from '../views/token.js';

const sortKeys = ['fiat_value', 'holders_count', 'circulating_market_cap'] as const;
const orders = ['asc', 'desc'] as const;

const Querystring = Type.Object({
  q: Type.Optional(Type.String({ maxLength: 256, description: 'words of a token name or symbol: up to 256 characters' })),
  type: Type.Optional(Type.String({ description: `a comma-separated list of ${tokenTypes.join(', ')}` })),
  sort: Type.Optional(Type.String({ description: sortKeys.join(', ') })),
  order: Type.Optional(Type.String({ description: 'asc or desc' })),
  ...tokenListKeyset.querystring,
});

const Response = Type.Object({
  items: Type.Array(TokenSchema),
  next_page_params: nextPageParamsSchema(tokenListKeyset),
});

/** Blockscout's sort and order: by market cap (the default), price or holders, most first unless `asc`. */
function parseOrder(sort: string | undefined, order: string | undefined): Parsed<TokenListOrder> {
  const key = parseChoice<(typeof sortKeys)[number] | 'none'>('sort', sort, sortKeys, 'none');
  if (!key.ok) return key;
  const direction = parseChoice<(typeof orders)[number] | 'none'>('order', order, orders, 'none');
  if (!direction.ok) return direction;
  return {
    ok: true,
    value: { by: key.value === 'none' ? 'circulating_market_cap' : key.value, direction: direction.value === 'asc' ? 'asc' : 'desc' },
  };
}

/** The token list (the frontend's /tokens): in Blockscout's order (see listTokens), filtered by words of the name or symbol and by type. */
export const tokenListRoute: ApiRoute = (app, { db }) => {
  app.get(
    '/api/v2/tokens',
    {
      schema: { querystring: Querystring, response: { 200: Response } },
      // Holders and supply move with the blocks; names the token metadata stage reads wait for the next change or the age limit.
      config: { sharedAnswer: { changedBy: [...headChanges] } },
    },
    async (request) => {
      const { types, order } = requireValid({
        types: parseTokenTypes(request.query.type, tokenTypes),
        order: parseOrder(request.query.sort, request.query.order),
      });
      const after = tokenListKeyset.parse(request.query);
      const words = prefixWords(request.query.q ?? '');
      const filters = { order, types: types.length === 0 ? tokenTypes : types, words };
      const { items, nextPageParams } = tokenListKeyset.page(await listTokens(db, filters, after, fetchSize));
      return { items: items.map(tokenView), next_page_params: nextPageParams };
    },
  );
};
