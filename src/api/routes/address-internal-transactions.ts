import { Type } from '@sinclair/typebox';
import type { Hex } from '../../model.js';
import { listAddressInternalTransactions } from '../../store/read/internal-transactions.js';
import { parseChoice, requireValid } from '../filters.js';
import { fetchSize, internalTransactionsKeyset, nextPageParamsSchema } from '../paging.js';
import type { ApiRoute } from '../route.js';
import { AddressHashParam } from '../schemas.js';
import { InternalTransactionSchema, internalTransactionView } from '../views/internal-transaction.js';

const Params = Type.Object({ address_hash: AddressHashParam });

const Querystring = Type.Object({
  filter: Type.Optional(Type.String({ description: 'to or from' })),
  ...internalTransactionsKeyset.querystring,
});

const Response = Type.Object({
  items: Type.Array(InternalTransactionSchema),
  next_page_params: nextPageParamsSchema(internalTransactionsKeyset),
});

const sides = ['to', 'from'] as const;

/** E7: the internal transactions to or from an address, newest first; an unknown address has none. */
export const addressInternalTransactionsRoute: ApiRoute = (app, { db }) => {
  app.get(
    '/api/v2/addresses/:address_hash/internal-transactions',
    { schema: { params: Params, querystring: Querystring, response: { 200: Response } } },
    async (request) => {
      const address = request.params.address_hash.toLowerCase() as Hex;
      const { side } = requireValid({ side: parseChoice<(typeof sides)[number] | 'both'>('filter', request.query.filter, sides, 'both') });
      const after = internalTransactionsKeyset.parse(request.query);
      const fetched = await listAddressInternalTransactions(db, address, side === 'both' ? null : side, after, fetchSize);
      const page = internalTransactionsKeyset.page(fetched);
      return { items: page.items.map(internalTransactionView), next_page_params: page.nextPageParams };
    },
  );
};
