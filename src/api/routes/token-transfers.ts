import { Type } from '@sinclair/typebox';
import type { Hex } from '../../model.js';
import { listTokenTokenTransfers } from '../../store/read/token-transfers.js';
import { fetchSize, nextPageParamsSchema, tokenTransfersKeyset } from '../paging.js';
import type { ApiRoute } from '../route.js';
import { TokenParams, requireToken } from '../token-pages.js';
import { listedTokenTransfers } from '../token-transfer-lists.js';
import { TokenTransferSchema } from '../views/token-transfer.js';

const Querystring = Type.Object({ ...tokenTransfersKeyset.querystring });

const Response = Type.Object({
  items: Type.Array(TokenTransferSchema),
  next_page_params: nextPageParamsSchema(tokenTransfersKeyset),
});

/** The transfers of a token, newest first, an ERC-1155 batch one item per id, paged as E8. */
export const tokenTransfersRoute: ApiRoute = (app, { db }) => {
  app.get(
    '/api/v2/tokens/:address_hash/transfers',
    { schema: { params: TokenParams, querystring: Querystring, response: { 200: Response } } },
    async (request) => {
      const after = tokenTransfersKeyset.parse(request.query);
      const token = await requireToken(db, request.params.address_hash);
      const { items, nextPageParams } = tokenTransfersKeyset.page(
        await listTokenTokenTransfers(db, token.address.toLowerCase() as Hex, after, fetchSize),
      );
      return { items: await listedTokenTransfers(db, items), next_page_params: nextPageParams };
    },
  );
};
