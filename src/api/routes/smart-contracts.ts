import { Type } from '@sinclair/typebox';
import { type VerifiedContractsOrder, countSmartContracts, listVerifiedContracts } from '../../store/read/smart-contracts.js';
import { type Parsed, parseChoice, requireValid } from '../filters.js';
import {
  fetchSize,
  nextPageParamsSchema,
  verifiedContractsByBalanceKeyset,
  verifiedContractsByTransactionsKeyset,
  verifiedContractsKeyset,
} from '../paging.js';
import type { ApiRoute } from '../route.js';
import { DecimalString, Nullable, StringEnum } from '../schemas.js';
import { AddressInfoSchema, addressInfo } from '../views/address-info.js';

const languages = ['solidity', 'vyper', 'yul', 'geas'] as const;
const sortKeys = ['balance', 'transactions_count'] as const;
const orders = ['asc', 'desc'] as const;

const Query = Type.Object({
  q: Type.Optional(Type.String({ maxLength: 256, description: 'a contract name, or a prefix of its address' })),
  filter: Type.Optional(StringEnum(languages)),
  sort: Type.Optional(Type.String({ description: sortKeys.join(' or ') })),
  order: Type.Optional(Type.String({ description: 'asc or desc' })),
  ...verifiedContractsByBalanceKeyset.querystring,
  ...verifiedContractsByTransactionsKeyset.querystring,
});

const Item = Type.Object({
  address: AddressInfoSchema,
  certified: Type.Boolean(),
  coin_balance: Nullable(DecimalString),
  compiler_version: Type.String(),
  has_constructor_args: Type.Boolean(),
  language: Type.String(),
  license_type: Nullable(Type.String()),
  market_cap: Nullable(Type.String()),
  optimization_enabled: Type.Boolean(),
  reputation: Type.String(),
  transactions_count: Type.Integer(),
  verified_at: Type.String(),
});

const Response = Type.Object({
  items: Type.Array(Item),
  next_page_params: nextPageParamsSchema(verifiedContractsKeyset, verifiedContractsByBalanceKeyset, verifiedContractsByTransactionsKeyset),
});

/** Blockscout's sort and order: by balance or transaction count, either way; both or neither (the latest verified first). */
function parseOrder(sort: string | undefined, order: string | undefined): Parsed<VerifiedContractsOrder> {
  const key = parseChoice<(typeof sortKeys)[number] | 'none'>('sort', sort, sortKeys, 'none');
  if (!key.ok) return key;
  const direction = parseChoice<(typeof orders)[number] | 'none'>('order', order, orders, 'none');
  if (!direction.ok) return direction;
  if (key.value === 'none') return { ok: true, value: { by: 'id' } };
  return { ok: true, value: { by: key.value, direction: direction.value === 'asc' ? 'asc' : 'desc' } };
}

const keysets = {
  id: verifiedContractsKeyset,
  balance: verifiedContractsByBalanceKeyset,
  transactions_count: verifiedContractsByTransactionsKeyset,
};

/** The verified contracts, the latest verified first or sorted (`sort`, `order`), by name or address (`q`) and language (`filter`). */
export const verifiedContractsRoute: ApiRoute = (app, { db }) => {
  app.get('/api/v2/smart-contracts', { schema: { querystring: Query, response: { 200: Response } } }, async (request) => {
    const query = request.query;
    const { order } = requireValid({ order: parseOrder(query.sort, query.order) });
    const after = keysets[order.by].parse(query);
    const q = query.q?.trim() ?? '';
    const rows = await listVerifiedContracts(db, { q: q === '' ? null : q, language: query.filter ?? null }, order, after, fetchSize);
    const page =
      order.by === 'balance'
        ? verifiedContractsByBalanceKeyset.page(rows)
        : order.by === 'transactions_count'
          ? verifiedContractsByTransactionsKeyset.page(rows)
          : verifiedContractsKeyset.page(rows);
    return {
      items: page.items.map((r) => ({
        address: addressInfo({ hash: r.address, isContract: true }),
        certified: false,
        coin_balance: r.coinBalance === null ? null : r.coinBalance.toString(),
        compiler_version: r.compilerVersion,
        has_constructor_args: r.hasConstructorArgs,
        language: r.language,
        license_type: r.licenseType,
        market_cap: r.marketCap,
        optimization_enabled: r.optimizationEnabled,
        reputation: 'ok',
        transactions_count: r.transactionsCount,
        verified_at: r.verifiedAt,
      })),
      next_page_params: page.nextPageParams,
    };
  });
};

const Counters = Type.Object({
  new_smart_contracts_24h: DecimalString,
  new_verified_smart_contracts_24h: DecimalString,
  smart_contracts: DecimalString,
  verified_smart_contracts: DecimalString,
});

/** How many contracts there are, and verified ones, in all and new in the last 24 hours. */
export const smartContractsCountersRoute: ApiRoute = (app, { db }) => {
  app.get('/api/v2/smart-contracts/counters', { schema: { response: { 200: Counters } } }, async () => {
    const counts = await countSmartContracts(db);
    return {
      new_smart_contracts_24h: counts.newContracts24h.toString(),
      new_verified_smart_contracts_24h: counts.newVerified24h.toString(),
      smart_contracts: counts.contracts.toString(),
      verified_smart_contracts: counts.verified.toString(),
    };
  });
};
