import { Type } from '@sinclair/typebox';
import type { Hex } from '../../model.js';
import { listInstanceTokenTransfers } from '../../store/read/token-transfers.js';
import { findToken } from '../../store/read/tokens.js';
import { NotFoundError } from '../errors.js';
import { fetchSize, instanceTransfersKeyset, nextPageParamsSchema } from '../paging.js';
import type { ApiRoute } from '../route.js';
import { AddressHashParam } from '../schemas.js';
import { listedTokenTransfers } from '../token-transfer-lists.js';
import { TokenTransferSchema } from '../views/token-transfer.js';

const Params = Type.Object({
  address_hash: AddressHashParam,
  id: Type.String({ pattern: '^[0-9]{1,78}$', description: 'a token id: a non-negative integer' }),
});

const Querystring = Type.Object({ ...instanceTransfersKeyset.querystring });

const Response = Type.Object({
  items: Type.Array(TokenTransferSchema),
  next_page_params: nextPageParamsSchema(instanceTransfersKeyset),
});

/** When the per-instance endpoints were announced as deprecated (RFC 9745 Deprecation: a Unix time). */
const deprecation = '@1767225600';

/**
 * E4: the transfers of one NFT instance, newest first. An unknown token, or a fungible one, is a 404.
 * Deprecated in favour of a successor API, which the Link header names when one is configured.
 */
export const tokenInstanceTransfersRoute: ApiRoute = (app, { db, instanceTransfersSuccessorUrl }) => {
  app.get(
    '/api/v2/tokens/:address_hash/instances/:id/transfers',
    { schema: { params: Params, querystring: Querystring, response: { 200: Response } } },
    async (request, reply) => {
      const address = request.params.address_hash.toLowerCase() as Hex;
      const after = instanceTransfersKeyset.parse(request.query);
      const token = await findToken(db, address);
      if (token === null || token.type === 'ERC-20') throw new NotFoundError();
      void reply.header('deprecation', deprecation);
      if (instanceTransfersSuccessorUrl !== null) {
        const successor = instanceTransfersSuccessorUrl.replaceAll('{address_hash}', address).replaceAll('{id}', request.params.id);
        void reply.header('link', `<${successor}>; rel="successor-version"`);
      }
      const { items, nextPageParams } = instanceTransfersKeyset.page(
        await listInstanceTokenTransfers(db, address, BigInt(request.params.id), after, fetchSize),
      );
      return { items: await listedTokenTransfers(db, items), next_page_params: nextPageParams };
    },
  );
};
