import { Type } from '@sinclair/typebox';
import { listTokenTransfers } from '../../store/read/token-transfers.js';
import { requireValid } from '../filters.js';
import { fetchSize, nextPageParamsSchema, tokenTransfersKeyset } from '../paging.js';
import type { ApiRoute } from '../route.js';
import { parseTokenTypes, tokenTypes } from '../token-types.js';
import { listedTokenTransfers } from '../token-transfer-lists.js';
import { TokenTransferSchema } from '../views/token-transfer.js';

const Querystring = Type.Object({
  type: Type.Optional(Type.String({ description: `a comma-separated list of ${tokenTypes.join(', ')}` })),
  ...tokenTransfersKeyset.querystring,
});

const Response = Type.Object({
  items: Type.Array(TokenTransferSchema),
  next_page_params: nextPageParamsSchema(tokenTransfersKeyset),
});

/** Every token transfer of the chain, newest first, an ERC-1155 batch one item per id, paged as E8. */
export const allTokenTransfersRoute: ApiRoute = (app, { db }) => {
  app.get('/api/v2/token-transfers', { schema: { querystring: Querystring, response: { 200: Response } } }, async (request) => {
    const { types } = requireValid({ types: parseTokenTypes(request.query.type, tokenTypes) });
    const after = tokenTransfersKeyset.parse(request.query);
    const { items, nextPageParams } = tokenTransfersKeyset.page(
      await listTokenTransfers(db, types.length === 0 ? tokenTypes : types, after, fetchSize),
    );
    return { items: await listedTokenTransfers(db, items), next_page_params: nextPageParams };
  });
};
