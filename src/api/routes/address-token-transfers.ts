import { Type } from '@sinclair/typebox';
import type { Hex } from '../../model.js';
import { listAddressTokenTransfers } from '../../store/read/token-transfers.js';
import { parseChoice, requireValid } from '../filters.js';
import { fetchSize, nextPageParamsSchema, tokenTransfersKeyset } from '../paging.js';
import type { ApiRoute } from '../route.js';
import { AddressHashParam } from '../schemas.js';
import { parseTokenTypes, tokenTypes } from '../token-types.js';
import { listedTokenTransfers } from '../token-transfer-lists.js';
import { TokenTransferSchema } from '../views/token-transfer.js';

const Params = Type.Object({ address_hash: AddressHashParam });

const Querystring = Type.Object({
  type: Type.Optional(Type.String({ description: `a comma-separated list of ${tokenTypes.join(', ')}` })),
  filter: Type.Optional(Type.String({ description: 'to or from' })),
  token: Type.Optional(AddressHashParam),
  ...tokenTransfersKeyset.querystring,
});

const Response = Type.Object({
  items: Type.Array(TokenTransferSchema),
  next_page_params: nextPageParamsSchema(tokenTransfersKeyset),
});

/** E8: the token transfers an address sent or received, newest first, an ERC-1155 batch one item per id. */
export const addressTokenTransfersRoute: ApiRoute = (app, { db }) => {
  app.get(
    '/api/v2/addresses/:address_hash/token-transfers',
    { schema: { params: Params, querystring: Querystring, response: { 200: Response } } },
    async (request) => {
      const query = request.query;
      const { types, direction } = requireValid({
        types: parseTokenTypes(query.type, tokenTypes),
        direction: parseChoice<'to' | 'from' | 'either'>('filter', query.filter, ['to', 'from'], 'either'),
      });
      const after = tokenTransfersKeyset.parse(query);
      const address = request.params.address_hash.toLowerCase() as Hex;
      const filters = {
        direction: direction === 'either' ? null : direction,
        types,
        token: (query.token?.toLowerCase() as Hex | undefined) ?? null,
      };
      const { items, nextPageParams } = tokenTransfersKeyset.page(await listAddressTokenTransfers(db, address, filters, after, fetchSize));
      return { items: await listedTokenTransfers(db, items), next_page_params: nextPageParams };
    },
  );
};
