import { Type } from '@sinclair/typebox';
import type { Address } from '../../model.js';
import { countAddressTabs, findAddressCounters, findAddressSummary } from '../../store/read/addresses.js';
import { readCoinMarket } from '../../store/read/market.js';
import { fetchSize } from '../paging.js';
import type { ApiRoute } from '../route.js';
import { AddressHashParam } from '../schemas.js';
import {
  AddressCountersSchema,
  AddressSchema,
  AddressTabsCountersSchema,
  addressCountersView,
  addressTabsCountersView,
  addressView,
} from '../views/address.js';

const Params = Type.Object({ address_hash: AddressHashParam });

const addressOf = (hash: string) => hash.toLowerCase() as Address;

/** The address page: an address nothing indexed mentions is a 200 with empty fields, as in Blockscout. */
export const addressRoute: ApiRoute = (app, { db }) => {
  app.get('/api/v2/addresses/:address_hash', { schema: { params: Params, response: { 200: AddressSchema } } }, async (request) => {
    const [summary, coin] = await Promise.all([findAddressSummary(db, addressOf(request.params.address_hash)), readCoinMarket(db)]);
    return addressView(summary, coin?.fiatValue ?? null);
  });
};

/** The address page's counters, kept with the indexed blocks (address_counters). */
export const addressCountersRoute: ApiRoute = (app, { db }) => {
  app.get(
    '/api/v2/addresses/:address_hash/counters',
    { schema: { params: Params, response: { 200: AddressCountersSchema } } },
    async (request) => addressCountersView(await findAddressCounters(db, addressOf(request.params.address_hash))),
  );
};

/** The counts on the address page's tabs, each up to 51 (a page and one more) as Blockscout caps them. */
export const addressTabsCountersRoute: ApiRoute = (app, { db }) => {
  app.get(
    '/api/v2/addresses/:address_hash/tabs-counters',
    { schema: { params: Params, response: { 200: AddressTabsCountersSchema } } },
    async (request) => addressTabsCountersView(await countAddressTabs(db, addressOf(request.params.address_hash), fetchSize)),
  );
};
