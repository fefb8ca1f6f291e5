import { Type } from '@sinclair/typebox';
import { readChainTiming } from '../../store/read/chain.js';
import {
  type TransactionFilters,
  listMinedTransactions,
  listPendingTransactions,
  transactionKinds,
} from '../../store/read/transactions.js';
import { parseAllowedList, parseChoice, parseCommaList, requireValid } from '../filters.js';
import { methodFilterExpected, methodFilterValue, resolveMethodFilter } from '../method-filter.js';
import { fetchSize, nextPageParamsSchema, pendingTransactionsKeyset, transactionsKeyset } from '../paging.js';
import type { ApiRoute } from '../route.js';
import { headChanges } from '../shared-answers.js';
import { listedTransactions } from '../transaction-lists.js';
import { TransactionSchema } from '../views/transaction.js';

const confirmationStates = ['validated', 'pending'] as const;

const Querystring = Type.Object({
  filter: Type.Optional(Type.String({ description: 'validated (the default) or pending' })),
  type: Type.Optional(Type.String({ description: `a comma-separated list of ${transactionKinds.join(', ')}` })),
  method: Type.Optional(Type.String({ description: `a comma-separated list of ${methodFilterExpected}` })),
  ...transactionsKeyset.querystring,
  ...pendingTransactionsKeyset.querystring,
});

const Response = Type.Object({
  items: Type.Array(TransactionSchema),
  next_page_params: nextPageParamsSchema(transactionsKeyset, pendingTransactionsKeyset),
});

/** E2: the newest transactions, validated or pending, filtered by kind and called method. */
export const transactionsRoute: ApiRoute = (app, { db }) => {
  app.get(
    '/api/v2/transactions',
    {
      schema: { querystring: Querystring, response: { 200: Response } },
      // The first page of validated transactions, as the frontend asks for it; not the pool's (no change says when it moves).
      config: { sharedAnswer: { changedBy: [...headChanges, 'traced', 'verification'], defaults: { filter: 'validated' } } },
    },
    async (request) => {
      const query = request.query;
      const { filter, kinds, methods } = requireValid({
        filter: parseChoice('filter', query.filter, confirmationStates, 'validated'),
        kinds: parseAllowedList('type', query.type, transactionKinds),
        methods: parseCommaList('method', query.method, methodFilterValue, methodFilterExpected),
      });
      const filters: TransactionFilters = { kinds, selectors: await resolveMethodFilter(db, methods) };

      if (filter === 'pending') {
        const after = pendingTransactionsKeyset.parse(query);
        const { items, nextPageParams } = pendingTransactionsKeyset.page(await listPendingTransactions(db, filters, after, fetchSize));
        // Confirmations and their timing do not apply to pool transactions.
        const timing = { head: null, averageBlockTimeMs: null };
        return { items: await listedTransactions(db, items, timing), next_page_params: nextPageParams };
      }

      const after = transactionsKeyset.parse(query);
      const [timing, fetched] = await Promise.all([readChainTiming(db), listMinedTransactions(db, filters, after, fetchSize)]);
      const { items, nextPageParams } = transactionsKeyset.page(fetched);
      return { items: await listedTransactions(db, items, timing), next_page_params: nextPageParams };
    },
  );
};
