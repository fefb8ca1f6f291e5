import { Type } from '@sinclair/typebox';
import { listTokenInstances } from '../../store/read/token-instances.js';
import { fetchSize, nextPageParamsSchema, tokenInstancesKeyset } from '../paging.js';
import type { ApiRoute } from '../route.js';
import { TokenParams, requireToken } from '../token-pages.js';
import { TokenInstanceSchema, ownedTokenInstanceView } from '../views/token-instance.js';

const Querystring = Type.Object({ ...tokenInstancesKeyset.querystring });

const Response = Type.Object({
  items: Type.Array(TokenInstanceSchema),
  next_page_params: nextPageParamsSchema(tokenInstancesKeyset),
});

/** A token's NFT ids, highest first, each with its owner as the instance page shows it (none for an ERC-20). */
export const tokenInstancesRoute: ApiRoute = (app, { db }) => {
  app.get(
    '/api/v2/tokens/:address_hash/instances',
    { schema: { params: TokenParams, querystring: Querystring, response: { 200: Response } } },
    async (request) => {
      const before = tokenInstancesKeyset.parse(request.query);
      const token = await requireToken(db, request.params.address_hash);
      const { items, nextPageParams } = tokenInstancesKeyset.page(await listTokenInstances(db, token.address, before, fetchSize));
      return { items: items.map((item) => ownedTokenInstanceView(item, token)), next_page_params: nextPageParams };
    },
  );
};
