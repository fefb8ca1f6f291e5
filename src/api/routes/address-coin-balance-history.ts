import { Type } from '@sinclair/typebox';
import type { Address } from '../../model.js';
import { listCoinBalanceHistory } from '../../store/read/coin-balances.js';
import { coinBalanceHistoryKeyset, fetchSize, nextPageParamsSchema } from '../paging.js';
import type { ApiRoute } from '../route.js';
import { AddressHashParam } from '../schemas.js';
import { CoinBalanceSchema, coinBalanceView } from '../views/coin-balance.js';

const Params = Type.Object({ address_hash: AddressHashParam });

const Querystring = Type.Object({ ...coinBalanceHistoryKeyset.querystring });

const Response = Type.Object({
  items: Type.Array(CoinBalanceSchema),
  next_page_params: nextPageParamsSchema(coinBalanceHistoryKeyset),
});

/** The native balance reads of an address, newest first; an address never read has an empty history. */
export const addressCoinBalanceHistoryRoute: ApiRoute = (app, { db }) => {
  app.get(
    '/api/v2/addresses/:address_hash/coin-balance-history',
    { schema: { params: Params, querystring: Querystring, response: { 200: Response } } },
    async (request) => {
      const after = coinBalanceHistoryKeyset.parse(request.query);
      const address = request.params.address_hash.toLowerCase() as Address;
      const { items, nextPageParams } = coinBalanceHistoryKeyset.page(await listCoinBalanceHistory(db, address, after, fetchSize));
      return { items: items.map(coinBalanceView), next_page_params: nextPageParams };
    },
  );
};
