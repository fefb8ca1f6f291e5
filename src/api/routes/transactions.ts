import { Type } from '@sinclair/typebox';
import { readChainTiming } from '../../store/read/chain.js';
import {
  type TransactionFilters,
  listMinedTransactions,
  listPendingTransactions,
  transactionKinds,
} from '../../store/read/transactions.js';
import { parseAllowedList, parseChoice, parseCommaList, requireValid } from '../filters.js';
import { knownMethodSelectors, methodSelector } from '../known-methods.js';
import { fetchSize, nextPageParamsSchema, pendingTransactionsKeyset, transactionsKeyset } from '../paging.js';
import type { ApiRoute } from '../route.js';
import { TransactionSchema, transactionView } from '../views/transaction.js';

const confirmationStates = ['validated', 'pending'] as const;
const methodNames = Object.keys(knownMethodSelectors).join(', ');

const Querystring = Type.Object({
  filter: Type.Optional(Type.String({ description: 'validated (the default) or pending' })),
  type: Type.Optional(Type.String({ description: `a comma-separated list of ${transactionKinds.join(', ')}` })),
  method: Type.Optional(Type.String({ description: `a comma-separated list of method names (${methodNames}) or 4-byte selectors` })),
  ...transactionsKeyset.querystring,
  ...pendingTransactionsKeyset.querystring,
});

const Response = Type.Object({
  items: Type.Array(TransactionSchema),
  next_page_params: nextPageParamsSchema(transactionsKeyset, pendingTransactionsKeyset),
});

/** E2: the newest transactions, validated or pending, filtered by kind and called method. */
export const transactionsRoute: ApiRoute = (app, { db }) => {
  app.get('/api/v2/transactions', { schema: { querystring: Querystring, response: { 200: Response } } }, async (request) => {
    const query = request.query;
    const { filter, kinds, selectors } = requireValid({
      filter: parseChoice('filter', query.filter, confirmationStates, 'validated'),
      kinds: parseAllowedList('type', query.type, transactionKinds),
      selectors: parseCommaList('method', query.method, methodSelector, `method names (${methodNames}) or 4-byte selectors`),
    });
    const filters: TransactionFilters = { kinds, selectors };

    if (filter === 'pending') {
      const after = pendingTransactionsKeyset.parse(query);
      const { items, nextPageParams } = pendingTransactionsKeyset.page(await listPendingTransactions(db, filters, after, fetchSize));
      // Confirmations and their timing do not apply to pool transactions.
      const timing = { head: null, averageBlockTimeMs: null };
      return { items: items.map((item) => transactionView(item, timing)), next_page_params: nextPageParams };
    }

    const after = transactionsKeyset.parse(query);
    const [timing, fetched] = await Promise.all([readChainTiming(db), listMinedTransactions(db, filters, after, fetchSize)]);
    const { items, nextPageParams } = transactionsKeyset.page(fetched);
    return { items: items.map((item) => transactionView(item, timing)), next_page_params: nextPageParams };
  });
};
