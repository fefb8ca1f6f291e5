import { Type } from '@sinclair/typebox';
import { countInstanceTransfers } from '../../store/read/token-instances.js';
import type { ApiRoute } from '../route.js';
import { InstanceParams, requireNftToken } from '../token-pages.js';

const Response = Type.Object({ transfers_count: Type.Integer() });

/** How many transfers E4 lists for one NFT id (0 for an id no transfer mentions, as E4's list is empty). */
export const tokenInstanceTransfersCountRoute: ApiRoute = (app, { db }) => {
  app.get(
    '/api/v2/tokens/:address_hash/instances/:id/transfers-count',
    { schema: { params: InstanceParams, response: { 200: Response } } },
    async (request) => {
      const token = await requireNftToken(db, request.params.address_hash);
      return { transfers_count: Number(await countInstanceTransfers(db, token.address, BigInt(request.params.id))) };
    },
  );
};
