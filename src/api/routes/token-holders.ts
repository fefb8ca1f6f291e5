import { Type } from '@sinclair/typebox';
import { listTokenHolders } from '../../store/read/token-holders.js';
import { fetchSize, nextPageParamsSchema, tokenHoldersKeyset } from '../paging.js';
import type { ApiRoute } from '../route.js';
import { TokenParams, requireToken } from '../token-pages.js';
import { TokenHolderSchema, tokenHolderView } from '../views/token-holder.js';

const Querystring = Type.Object({ ...tokenHoldersKeyset.querystring });

const Response = Type.Object({
  items: Type.Array(TokenHolderSchema),
  next_page_params: nextPageParamsSchema(tokenHoldersKeyset),
});

/** A token's holders, largest balance first; an ERC-1155 holder once per id it holds, with the id. */
export const tokenHoldersRoute: ApiRoute = (app, { db }) => {
  app.get(
    '/api/v2/tokens/:address_hash/holders',
    { schema: { params: TokenParams, querystring: Querystring, response: { 200: Response } } },
    async (request) => {
      const after = tokenHoldersKeyset.parse(request.query);
      const token = await requireToken(db, request.params.address_hash);
      const { items, nextPageParams } = tokenHoldersKeyset.page(await listTokenHolders(db, token.address, after, fetchSize));
      return { items: items.map(tokenHolderView), next_page_params: nextPageParams };
    },
  );
};
