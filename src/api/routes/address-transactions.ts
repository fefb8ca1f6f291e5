import { Type } from '@sinclair/typebox';
import type { Address } from '../../model.js';
import { listAddressTransactions } from '../../store/read/addresses.js';
import { readChainTiming } from '../../store/read/chain.js';
import { parseChoice, requireValid } from '../filters.js';
import { fetchSize, nextPageParamsSchema, transactionsKeyset } from '../paging.js';
import type { ApiRoute } from '../route.js';
import { AddressHashParam } from '../schemas.js';
import { listedTransactions } from '../transaction-lists.js';
import { TransactionSchema } from '../views/transaction.js';

const Params = Type.Object({ address_hash: AddressHashParam });

const Querystring = Type.Object({
  filter: Type.Optional(Type.String({ description: 'to or from' })),
  ...transactionsKeyset.querystring,
});

const Response = Type.Object({
  items: Type.Array(TransactionSchema),
  next_page_params: nextPageParamsSchema(transactionsKeyset),
});

/** The mined transactions an address sent (filter=from), received or created (filter=to), or either, newest first. */
export const addressTransactionsRoute: ApiRoute = (app, { db }) => {
  app.get(
    '/api/v2/addresses/:address_hash/transactions',
    { schema: { params: Params, querystring: Querystring, response: { 200: Response } } },
    async (request) => {
      const query = request.query;
      const { direction } = requireValid({
        direction: parseChoice<'to' | 'from' | 'either'>('filter', query.filter, ['to', 'from'], 'either'),
      });
      const after = transactionsKeyset.parse(query);
      const address = request.params.address_hash.toLowerCase() as Address;
      const [timing, fetched] = await Promise.all([
        readChainTiming(db),
        listAddressTransactions(db, address, direction === 'either' ? null : direction, after, fetchSize),
      ]);
      const { items, nextPageParams } = transactionsKeyset.page(fetched);
      return { items: await listedTransactions(db, items, timing), next_page_params: nextPageParams };
    },
  );
};
