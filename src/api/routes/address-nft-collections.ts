import { Type } from '@sinclair/typebox';
import type { Hex } from '../../model.js';
import { listNftCollections, nftTypeOrder } from '../../store/read/nft-collections.js';
import { requireValid } from '../filters.js';
import { fetchSize, nextPageParamsSchema, nftCollectionsKeyset } from '../paging.js';
import type { ApiRoute } from '../route.js';
import { AddressHashParam } from '../schemas.js';
import { parseTokenTypes } from '../token-types.js';
import { TokenInstanceSchema, tokenInstanceView } from '../views/token-instance.js';
import { TokenSchema, tokenView } from '../views/token.js';

const Params = Type.Object({ address_hash: AddressHashParam });

const Querystring = Type.Object({
  type: Type.Optional(Type.String({ description: `a comma-separated list of ${nftTypeOrder.join(', ')}` })),
  ...nftCollectionsKeyset.querystring,
});

/** A preview instance carries its collection's type and the address's balance of it; token is null there. */
const PreviewSchema = Type.Composite([TokenInstanceSchema, Type.Object({ token_type: Type.String(), value: Type.String() })]);

const NftCollectionSchema = Type.Object({
  amount: Type.String(),
  token: TokenSchema,
  token_instances: Type.Array(PreviewSchema),
});

const Response = Type.Object({
  items: Type.Array(NftCollectionSchema),
  next_page_params: nextPageParamsSchema(nftCollectionsKeyset),
});

/** E3: the NFT collections an address holds, ERC-721 first, then ERC-1155, then ERC-404, with up to 9 ids each. */
export const addressNftCollectionsRoute: ApiRoute = (app, { db }) => {
  app.get(
    '/api/v2/addresses/:address_hash/nft/collections',
    { schema: { params: Params, querystring: Querystring, response: { 200: Response } } },
    async (request) => {
      const { types } = requireValid({ types: parseTokenTypes(request.query.type, nftTypeOrder) });
      const after = nftCollectionsKeyset.parse(request.query);
      const address = request.params.address_hash.toLowerCase() as Hex;
      const { items, nextPageParams } = nftCollectionsKeyset.page(await listNftCollections(db, address, types, after, fetchSize));
      return {
        items: items.map((item) => ({
          amount: item.amount.toString(),
          token: tokenView(item.token),
          token_instances: item.previews.map((preview) =>
            Object.assign(tokenInstanceView(preview.tokenId, preview.metadata, null), {
              token_type: item.token.type,
              value: preview.value.toString(),
            }),
          ),
        })),
        next_page_params: nextPageParams,
      };
    },
  );
};
