import { Type } from '@sinclair/typebox';
import type { Hex } from '../../model.js';
import { listAddressLogs } from '../../store/read/logs.js';
import { decodeLogs } from '../contract-decoding.js';
import { addressLogsKeyset, fetchSize, nextPageParamsSchema } from '../paging.js';
import type { ApiRoute } from '../route.js';
import { AddressHashParam } from '../schemas.js';
import { LogSchema, logView } from '../views/log.js';

const Params = Type.Object({ address_hash: AddressHashParam });

const Querystring = Type.Object({
  // Empty: no filter, as for the other lists' filters.
  topic: Type.Optional(Type.String({ pattern: '^(0x[0-9a-fA-F]{64})?$', description: 'a topic: 0x followed by 64 hex digits' })),
  ...addressLogsKeyset.querystring,
});

const Response = Type.Object({
  items: Type.Array(LogSchema),
  next_page_params: nextPageParamsSchema(addressLogsKeyset),
});

/** The logs an address emitted, newest first, those carrying `topic` (in any of the four places) when it is given. */
export const addressLogsRoute: ApiRoute = (app, { db }) => {
  app.get(
    '/api/v2/addresses/:address_hash/logs',
    { schema: { params: Params, querystring: Querystring, response: { 200: Response } } },
    async (request) => {
      const query = request.query;
      const after = addressLogsKeyset.parse(query);
      const topic = query.topic === undefined || query.topic === '' ? null : (query.topic.toLowerCase() as Hex);
      const address = request.params.address_hash.toLowerCase() as Hex;
      const { items, nextPageParams } = addressLogsKeyset.page(await listAddressLogs(db, address, topic, after, fetchSize));
      const decoded = await decodeLogs(db, items);
      return { items: items.map((item, i) => logView(item, null, decoded[i]!)), next_page_params: nextPageParams };
    },
  );
};
