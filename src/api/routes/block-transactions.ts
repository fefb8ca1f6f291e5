import { Type } from '@sinclair/typebox';
import { readChainTiming } from '../../store/read/chain.js';
import { listBlockTransactions } from '../../store/read/transactions.js';
import { fetchSize, nextPageParamsSchema, transactionsKeyset } from '../paging.js';
import type { ApiRoute } from '../route.js';
import { BlockNumberOrHashParam } from '../schemas.js';
import { listedTransactions } from '../transaction-lists.js';
import { TransactionSchema } from '../views/transaction.js';
import { resolveBlock } from './block-withdrawals.js';

const Params = Type.Object({ block_number_or_hash: BlockNumberOrHashParam });

const Querystring = Type.Object({ ...transactionsKeyset.querystring });

const Response = Type.Object({
  items: Type.Array(TransactionSchema),
  next_page_params: nextPageParamsSchema(transactionsKeyset),
});

/** The transactions of one block, as E2 renders and pages them; none for a block that lost consensus. */
export const blockTransactionsRoute: ApiRoute = (app, { db }) => {
  app.get(
    '/api/v2/blocks/:block_number_or_hash/transactions',
    { schema: { params: Params, querystring: Querystring, response: { 200: Response } } },
    async (request) => {
      const after = transactionsKeyset.parse(request.query);
      const block = await resolveBlock(db, request.params.block_number_or_hash);
      const [timing, fetched] = await Promise.all([readChainTiming(db), listBlockTransactions(db, block, after, fetchSize)]);
      const { items, nextPageParams } = transactionsKeyset.page(fetched);
      return { items: await listedTransactions(db, items, timing), next_page_params: nextPageParams };
    },
  );
};
