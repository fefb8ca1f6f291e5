import { Type } from '@sinclair/typebox';
import { listWithdrawals } from '../../store/read/withdrawals.js';
import { fetchSize, nextPageParamsSchema, withdrawalsKeyset } from '../paging.js';
import type { ApiRoute } from '../route.js';
import { WithdrawalSchema, withdrawalView } from '../views/withdrawal.js';

const Querystring = Type.Object({ ...withdrawalsKeyset.querystring });

const Response = Type.Object({
  items: Type.Array(WithdrawalSchema),
  next_page_params: nextPageParamsSchema(withdrawalsKeyset),
});

/** Every withdrawal of the chain, highest index first, with its block's number and time. */
export const allWithdrawalsRoute: ApiRoute = (app, { db }) => {
  app.get('/api/v2/withdrawals', { schema: { querystring: Querystring, response: { 200: Response } } }, async (request) => {
    const after = withdrawalsKeyset.parse(request.query);
    const { items, nextPageParams } = withdrawalsKeyset.page(await listWithdrawals(db, after, fetchSize));
    return { items: items.map(withdrawalView), next_page_params: nextPageParams };
  });
};
