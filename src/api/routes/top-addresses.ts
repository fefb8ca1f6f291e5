import { Type } from '@sinclair/typebox';
import { listTopAddresses } from '../../store/read/top-addresses.js';
import { invalidValueDetail } from '../errors.js';
import { type Parsed, parseChoice, requireValid } from '../filters.js';
import { fetchSize, nextPageParamsSchema, topAddressesKeyset } from '../paging.js';
import { readCoinMarket } from '../../store/read/market.js';
import type { ApiRoute } from '../route.js';
import { Nullable } from '../schemas.js';
import { TopAddressSchema, topAddressView } from '../views/top-address.js';

const Querystring = Type.Object({
  sort: Type.Optional(Type.String({ description: 'balance or transactions_count' })),
  order: Type.Optional(Type.String({ description: 'asc or desc' })),
  ...topAddressesKeyset.querystring,
});

const Response = Type.Object({
  exchange_rate: Nullable(Type.String()),
  items: Type.Array(TopAddressSchema),
  next_page_params: nextPageParamsSchema(topAddressesKeyset),
  total_supply: Nullable(Type.String()),
});

/** Blockscout's sort and order: only the list's own order, largest balance first, is served. */
function parseOrder(sort: string | undefined, order: string | undefined): Parsed<null> {
  const key = parseChoice<'balance' | 'transactions_count' | 'none'>('sort', sort, ['balance', 'transactions_count'], 'none');
  if (!key.ok) return key;
  const direction = parseChoice<'asc' | 'desc' | 'none'>('order', order, ['asc', 'desc'], 'none');
  if (!direction.ok) return direction;
  if (key.value === 'transactions_count') {
    return { ok: false, invalid: { param: 'sort', detail: invalidValueDetail('balance: the list is served by balance only', sort) } };
  }
  if (key.value === 'balance' && direction.value === 'asc') {
    return { ok: false, invalid: { param: 'order', detail: invalidValueDetail('desc: the list is served largest balance first', order) } };
  }
  return { ok: true, value: null };
}

/**
 * The top accounts (the frontend's /accounts): addresses by their latest coin balance read, largest first.
 * exchange_rate is the coin's price from the price source (null without one); the total supply is not known.
 */
export const topAddressesRoute: ApiRoute = (app, { db }) => {
  app.get('/api/v2/addresses', { schema: { querystring: Querystring, response: { 200: Response } } }, async (request) => {
    requireValid({ order: parseOrder(request.query.sort, request.query.order) });
    const after = topAddressesKeyset.parse(request.query);
    const [listed, coin] = await Promise.all([listTopAddresses(db, after, fetchSize), readCoinMarket(db)]);
    const { items, nextPageParams } = topAddressesKeyset.page(listed);
    return {
      exchange_rate: coin?.fiatValue ?? null,
      items: items.map(topAddressView),
      next_page_params: nextPageParams,
      total_supply: null,
    };
  });
};
