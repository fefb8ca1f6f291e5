import { Type } from '@sinclair/typebox';
import type { Address } from '../../model.js';
import { listCoinBalancesByDay } from '../../store/read/coin-balances.js';
import type { ApiRoute } from '../route.js';
import { AddressHashParam } from '../schemas.js';

/** Blockscout's COIN_BALANCE_HISTORY_DAYS default: the days the balance chart covers. */
const chartDays = 10;

const Params = Type.Object({ address_hash: AddressHashParam });

const Response = Type.Object({
  days: Type.Integer(),
  items: Type.Array(Type.Object({ date: Type.String({ format: 'date' }), value: Type.String() })),
});

/** The address page's balance chart: the largest balance read of each of the last days, the newest read last. */
export const addressCoinBalanceHistoryByDayRoute: ApiRoute = (app, { db }) => {
  app.get(
    '/api/v2/addresses/:address_hash/coin-balance-history-by-day',
    { schema: { params: Params, response: { 200: Response } } },
    async (request) => {
      const address = request.params.address_hash.toLowerCase() as Address;
      const points = await listCoinBalancesByDay(db, address, chartDays);
      return { days: chartDays, items: points.map((p) => ({ date: p.date, value: p.value.toString() })) };
    },
  );
};
