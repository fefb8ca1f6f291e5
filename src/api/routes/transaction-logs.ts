import { Type } from '@sinclair/typebox';
import type { Hex } from '../../model.js';
import { listTransactionLogs } from '../../store/read/logs.js';
import { decodeLogs } from '../contract-decoding.js';
import { NotFoundError } from '../errors.js';
import { fetchSize, nextPageParamsSchema, transactionLogsKeyset } from '../paging.js';
import type { ApiRoute } from '../route.js';
import { FullHashParam } from '../schemas.js';
import { LogSchema, logView } from '../views/log.js';

const Params = Type.Object({ transaction_hash: FullHashParam });

const Querystring = Type.Object({ ...transactionLogsKeyset.querystring });

const Response = Type.Object({
  items: Type.Array(LogSchema),
  next_page_params: nextPageParamsSchema(transactionLogsKeyset),
});

/** The receipt logs of a transaction in log_index order; an empty list for a pool transaction, 404 for an unknown one. */
export const transactionLogsRoute: ApiRoute = (app, { db }) => {
  app.get(
    '/api/v2/transactions/:transaction_hash/logs',
    { schema: { params: Params, querystring: Querystring, response: { 200: Response } } },
    async (request) => {
      const after = transactionLogsKeyset.parse(request.query);
      const found = await listTransactionLogs(db, request.params.transaction_hash.toLowerCase() as Hex, after, fetchSize);
      if (found === null) throw new NotFoundError();
      if (found === 'pending') return { items: [], next_page_params: null };
      const { items, nextPageParams } = transactionLogsKeyset.page(found.logs);
      const decoded = await decodeLogs(db, items);
      return { items: items.map((item, i) => logView(item, found.to, decoded[i]!)), next_page_params: nextPageParams };
    },
  );
};
