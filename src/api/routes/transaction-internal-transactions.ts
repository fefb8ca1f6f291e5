import { Type } from '@sinclair/typebox';
import type { Hex } from '../../model.js';
import { listTransactionInternalTransactions } from '../../store/read/internal-transactions.js';
import { findTransaction } from '../../store/read/transactions.js';
import { NotFoundError } from '../errors.js';
import { fetchSize, internalTransactionsKeyset, nextPageParamsSchema } from '../paging.js';
import type { ApiRoute } from '../route.js';
import { FullHashParam } from '../schemas.js';
import { InternalTransactionSchema, internalTransactionView } from '../views/internal-transaction.js';

const Params = Type.Object({ transaction_hash: FullHashParam });

const Querystring = Type.Object({ ...internalTransactionsKeyset.querystring });

const Response = Type.Object({
  items: Type.Array(InternalTransactionSchema),
  next_page_params: nextPageParamsSchema(internalTransactionsKeyset),
});

/**
 * The internal transactions of one transaction, as E7 lists and pages them (its top-level call left
 * out); none for a pool transaction or before its block is traced.
 */
export const transactionInternalTransactionsRoute: ApiRoute = (app, { db }) => {
  app.get(
    '/api/v2/transactions/:transaction_hash/internal-transactions',
    { schema: { params: Params, querystring: Querystring, response: { 200: Response } } },
    async (request) => {
      const after = internalTransactionsKeyset.parse(request.query);
      const transaction = await findTransaction(db, request.params.transaction_hash.toLowerCase() as Hex);
      if (transaction === null) throw new NotFoundError();
      if (transaction.blockNumber === null) return { items: [], next_page_params: null };
      const position = { hash: transaction.hash, blockNumber: transaction.blockNumber, index: transaction.index };
      const page = internalTransactionsKeyset.page(await listTransactionInternalTransactions(db, position, after, fetchSize));
      return { items: page.items.map(internalTransactionView), next_page_params: page.nextPageParams };
    },
  );
};
