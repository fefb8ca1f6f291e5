import { Type } from '@sinclair/typebox';
import type { Hex } from '../../model.js';
import { listBlocksValidated } from '../../store/read/blocks.js';
import { blocksValidatedKeyset, fetchSize, nextPageParamsSchema } from '../paging.js';
import type { ApiRoute } from '../route.js';
import { AddressHashParam } from '../schemas.js';
import { BlockSchema, blockView } from '../views/block.js';

const Params = Type.Object({ address_hash: AddressHashParam });

const Querystring = Type.Object({ ...blocksValidatedKeyset.querystring });

const Response = Type.Object({
  items: Type.Array(BlockSchema),
  next_page_params: nextPageParamsSchema(blocksValidatedKeyset),
});

/** E5: the consensus blocks an address mined, highest first; an unknown address has none. */
export const addressBlocksValidatedRoute: ApiRoute = (app, { db }) => {
  app.get(
    '/api/v2/addresses/:address_hash/blocks-validated',
    { schema: { params: Params, querystring: Querystring, response: { 200: Response } } },
    async (request) => {
      const miner = request.params.address_hash.toLowerCase() as Hex;
      const after = blocksValidatedKeyset.parse(request.query);
      const { items, nextPageParams } = blocksValidatedKeyset.page(await listBlocksValidated(db, miner, after, fetchSize));
      return { items: items.map(blockView), next_page_params: nextPageParams };
    },
  );
};
