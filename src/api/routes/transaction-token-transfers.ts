import { Type } from '@sinclair/typebox';
import type { Hex } from '../../model.js';
import { listTransactionTokenTransfers } from '../../store/read/token-transfers.js';
import { findTransaction } from '../../store/read/transactions.js';
import { NotFoundError } from '../errors.js';
import { requireValid } from '../filters.js';
import { fetchSize, nextPageParamsSchema, tokenTransfersKeyset } from '../paging.js';
import type { ApiRoute } from '../route.js';
import { FullHashParam } from '../schemas.js';
import { parseTokenTypes, tokenTypes } from '../token-types.js';
import { listedTokenTransfers } from '../token-transfer-lists.js';
import { TokenTransferSchema } from '../views/token-transfer.js';

const Params = Type.Object({ transaction_hash: FullHashParam });

const Querystring = Type.Object({
  type: Type.Optional(Type.String({ description: `a comma-separated list of ${tokenTypes.join(', ')}` })),
  ...tokenTransfersKeyset.querystring,
});

const Response = Type.Object({
  items: Type.Array(TokenTransferSchema),
  next_page_params: nextPageParamsSchema(tokenTransfersKeyset),
});

/** The token transfers of one transaction, as E8 lists and pages them; none for a pool transaction. */
export const transactionTokenTransfersRoute: ApiRoute = (app, { db }) => {
  app.get(
    '/api/v2/transactions/:transaction_hash/token-transfers',
    { schema: { params: Params, querystring: Querystring, response: { 200: Response } } },
    async (request) => {
      const { types } = requireValid({ types: parseTokenTypes(request.query.type, tokenTypes) });
      const after = tokenTransfersKeyset.parse(request.query);
      const transaction = await findTransaction(db, request.params.transaction_hash.toLowerCase() as Hex);
      if (transaction === null) throw new NotFoundError();
      if (transaction.blockNumber === null) return { items: [], next_page_params: null };
      const position = { hash: transaction.hash, blockNumber: transaction.blockNumber, index: transaction.index };
      const { items, nextPageParams } = tokenTransfersKeyset.page(
        await listTransactionTokenTransfers(db, position, types, after, fetchSize),
      );
      return { items: await listedTokenTransfers(db, items), next_page_params: nextPageParams };
    },
  );
};
