import { Type } from '@sinclair/typebox';
import type { Hex } from '../../model.js';
import { listTokenBalances } from '../../store/read/token-balances.js';
import { requireValid } from '../filters.js';
import { fetchSize, nextPageParamsSchema, tokenBalancesKeyset } from '../paging.js';
import type { ApiRoute } from '../route.js';
import { AddressHashParam, Nullable, decimal } from '../schemas.js';
import { parseTokenTypes, tokenTypes } from '../token-types.js';
import { TokenInstanceSchema, tokenInstanceView } from '../views/token-instance.js';
import { TokenSchema, tokenView } from '../views/token.js';

const Params = Type.Object({ address_hash: AddressHashParam });

const Querystring = Type.Object({
  type: Type.Optional(Type.String({ description: `a comma-separated list of ${tokenTypes.join(', ')}` })),
  ...tokenBalancesKeyset.querystring,
});

const TokenBalanceSchema = Type.Object({
  token: TokenSchema,
  token_id: Nullable(Type.String()),
  token_instance: Nullable(TokenInstanceSchema),
  value: Type.String(),
});

const Response = Type.Object({
  items: Type.Array(TokenBalanceSchema),
  next_page_params: nextPageParamsSchema(tokenBalancesKeyset),
});

/** E1: the tokens an address holds, largest balance first; ERC-1155 (and ERC-404) ids one item each. */
export const addressTokensRoute: ApiRoute = (app, { db }) => {
  app.get(
    '/api/v2/addresses/:address_hash/tokens',
    { schema: { params: Params, querystring: Querystring, response: { 200: Response } } },
    async (request) => {
      const { types } = requireValid({ types: parseTokenTypes(request.query.type, tokenTypes) });
      const after = tokenBalancesKeyset.parse(request.query);
      const address = request.params.address_hash.toLowerCase() as Hex;
      const { items, nextPageParams } = tokenBalancesKeyset.page(await listTokenBalances(db, address, types, after, fetchSize));
      return {
        items: items.map((item) => {
          const token = tokenView(item.token);
          return {
            token,
            token_id: decimal(item.tokenId),
            token_instance:
              item.tokenId === null || item.instance === null ? null : tokenInstanceView(item.tokenId, item.instance.metadata, token),
            value: item.value.toString(),
          };
        }),
        next_page_params: nextPageParams,
      };
    },
  );
};
