import { findTokenInstance } from '../../store/read/token-instances.js';
import { NotFoundError } from '../errors.js';
import type { ApiRoute } from '../route.js';
import { InstanceParams, requireNftToken } from '../token-pages.js';
import { TokenInstanceSchema, ownedTokenInstanceView } from '../views/token-instance.js';

/** One NFT id of a token, with its metadata and owner; an id no indexed transfer mentions is a 404. */
export const tokenInstanceRoute: ApiRoute = (app, { db }) => {
  app.get(
    '/api/v2/tokens/:address_hash/instances/:id',
    { schema: { params: InstanceParams, response: { 200: TokenInstanceSchema } } },
    async (request) => {
      const token = await requireNftToken(db, request.params.address_hash);
      const instance = await findTokenInstance(db, token.address, BigInt(request.params.id));
      if (instance === null) throw new NotFoundError();
      return ownedTokenInstanceView(instance, token);
    },
  );
};
