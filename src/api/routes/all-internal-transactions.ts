import { Type } from '@sinclair/typebox';
import type { Hex } from '../../model.js';
import {
  type InternalTransactionItem,
  type InternalTransactionKeyset,
  listInternalTransactions,
  listTransactionInternalTransactions,
} from '../../store/read/internal-transactions.js';
import type { Db } from '../../store/read/sql.js';
import { findTransaction } from '../../store/read/transactions.js';
import { fetchSize, internalTransactionsKeyset, nextPageParamsSchema } from '../paging.js';
import type { ApiRoute } from '../route.js';
import { FullHashParam } from '../schemas.js';
import { InternalTransactionSchema, internalTransactionView } from '../views/internal-transaction.js';

const Querystring = Type.Object({
  transaction_hash: Type.Optional(FullHashParam),
  ...internalTransactionsKeyset.querystring,
});

const Response = Type.Object({
  items: Type.Array(InternalTransactionSchema),
  next_page_params: nextPageParamsSchema(internalTransactionsKeyset),
});

/** The internal transactions of one transaction, as its own list gives them; none for an unknown or pending one. */
async function listOfTransaction(
  db: Db,
  hash: Hex,
  after: InternalTransactionKeyset | null,
  limit: number,
): Promise<InternalTransactionItem[]> {
  const transaction = await findTransaction(db, hash);
  if (transaction === null || transaction.blockNumber === null) return [];
  return listTransactionInternalTransactions(
    db,
    { hash: transaction.hash, blockNumber: transaction.blockNumber, index: transaction.index },
    after,
    limit,
  );
}

/**
 * Every internal transaction of the chain, newest first, the top-level call of each transaction left
 * out as E7 leaves it out; with transaction_hash, those of that transaction only.
 */
export const allInternalTransactionsRoute: ApiRoute = (app, { db }) => {
  app.get('/api/v2/internal-transactions', { schema: { querystring: Querystring, response: { 200: Response } } }, async (request) => {
    const after = internalTransactionsKeyset.parse(request.query);
    const hash = request.query.transaction_hash?.toLowerCase() as Hex | undefined;
    const fetched =
      hash === undefined ? await listInternalTransactions(db, after, fetchSize) : await listOfTransaction(db, hash, after, fetchSize);
    const { items, nextPageParams } = internalTransactionsKeyset.page(fetched);
    return { items: items.map(internalTransactionView), next_page_params: nextPageParams };
  });
};
