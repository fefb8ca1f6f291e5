import { Type } from '@sinclair/typebox';
import { listInstanceHolders } from '../../store/read/token-holders.js';
import { fetchSize, instanceHoldersKeyset, nextPageParamsSchema } from '../paging.js';
import type { ApiRoute } from '../route.js';
import { InstanceParams, requireNftToken } from '../token-pages.js';
import { TokenHolderSchema, tokenHolderView } from '../views/token-holder.js';

const Querystring = Type.Object({ ...instanceHoldersKeyset.querystring });

const Response = Type.Object({
  items: Type.Array(TokenHolderSchema),
  next_page_params: nextPageParamsSchema(instanceHoldersKeyset),
});

/**
 * The holders of one NFT id by balance, largest first: those of an ERC-1155 (or ERC-404) id; an ERC-721
 * id keeps no balance per id (its owner is on the instance page), so its list is empty.
 */
export const tokenInstanceHoldersRoute: ApiRoute = (app, { db }) => {
  app.get(
    '/api/v2/tokens/:address_hash/instances/:id/holders',
    { schema: { params: InstanceParams, querystring: Querystring, response: { 200: Response } } },
    async (request) => {
      const after = instanceHoldersKeyset.parse(request.query);
      const token = await requireNftToken(db, request.params.address_hash);
      const { items, nextPageParams } = instanceHoldersKeyset.page(
        await listInstanceHolders(db, token.address, BigInt(request.params.id), after, fetchSize),
      );
      return { items: items.map(tokenHolderView), next_page_params: nextPageParams };
    },
  );
};
