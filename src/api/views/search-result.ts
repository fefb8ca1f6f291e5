import { type Static, Type } from '@sinclair/typebox';
import type { Address } from '../../model.js';
import type { SearchBlockItem, SearchTransactionItem } from '../../store/read/search.js';
import type { TokenItem } from '../../store/read/tokens.js';
import { Nullable, StringEnum, Timestamp, decimal } from '../schemas.js';
import { checksumAddress } from './checksum-address.js';

/**
 * What search finds, as Blockscout's SearchView renders each kind, keys in alphabetical order, with its
 * frontend's page (`url`) and Blockscout's priority (blocks 3, tokens 2, the rest 0). Sextant certifies
 * nothing: those fields are false; a token's market figures are the price source's. Verification,
 * names and ENS names are filled in once the answer is built (contract-facts.ts).
 */
export type SearchResultItem =
  | { type: 'token'; token: TokenItem }
  | { type: 'address'; address: Address }
  /** An address found by its primary ENS name. */
  | { type: 'ens_domain'; address: Address; name: string }
  | { type: 'block'; block: SearchBlockItem }
  | { type: 'transaction'; transaction: SearchTransactionItem };

const TokenResultSchema = Type.Object({
  address_hash: Type.String(),
  address_url: Type.String(),
  certified: Type.Boolean(),
  circulating_market_cap: Nullable(Type.String()),
  exchange_rate: Nullable(Type.String()),
  icon_url: Nullable(Type.String()),
  is_smart_contract_verified: Type.Boolean(),
  is_verified_via_admin_panel: Type.Boolean(),
  name: Nullable(Type.String()),
  priority: Type.Integer(),
  reputation: Type.String(),
  symbol: Nullable(Type.String()),
  token_type: Type.String(),
  token_url: Type.String(),
  total_supply: Nullable(Type.String()),
  type: StringEnum(['token']),
});

/** A name of an address as Blockscout's name service describes it; no expiry is read (null). */
const EnsInfoSchema = Type.Object({
  address_hash: Type.String(),
  expiry_date: Type.Null(),
  name: Type.String(),
  names_count: Type.Integer(),
});

export type EnsInfo = Static<typeof EnsInfoSchema>;

export const ensInfo = (addressHash: string, name: string): EnsInfo => ({
  address_hash: addressHash,
  expiry_date: null,
  name,
  names_count: 1,
});

const AddressResultSchema = Type.Object({
  address_hash: Type.String(),
  certified: Type.Boolean(),
  ens_info: Nullable(EnsInfoSchema),
  is_smart_contract_verified: Type.Boolean(),
  name: Nullable(Type.String()),
  priority: Type.Integer(),
  reputation: Type.String(),
  type: StringEnum(['address']),
  url: Type.String(),
});

const EnsDomainResultSchema = Type.Object({
  address_hash: Type.String(),
  certified: Type.Boolean(),
  ens_info: EnsInfoSchema,
  is_smart_contract_verified: Type.Boolean(),
  name: Nullable(Type.String()),
  priority: Type.Integer(),
  reputation: Type.String(),
  type: StringEnum(['ens_domain']),
  url: Type.String(),
});

const BlockResultSchema = Type.Object({
  block_hash: Type.String(),
  block_number: Type.Integer(),
  block_type: StringEnum(['block', 'reorg']),
  priority: Type.Integer(),
  timestamp: Timestamp,
  type: StringEnum(['block']),
  url: Type.String(),
});

const TransactionResultSchema = Type.Object({
  priority: Type.Integer(),
  timestamp: Nullable(Timestamp),
  transaction_hash: Type.String(),
  type: StringEnum(['transaction']),
  url: Type.String(),
});

export const SearchResultSchema = Type.Union([
  TokenResultSchema,
  AddressResultSchema,
  EnsDomainResultSchema,
  BlockResultSchema,
  TransactionResultSchema,
]);

export type SearchResult = Static<typeof SearchResultSchema>;

export function searchResultView(item: SearchResultItem): SearchResult {
  switch (item.type) {
    case 'token': {
      const address = checksumAddress(item.token.address);
      return {
        address_hash: address,
        address_url: `/address/${address}`,
        certified: false,
        circulating_market_cap: item.token.circulatingMarketCap,
        exchange_rate: item.token.exchangeRate,
        icon_url: item.token.iconUrl,
        is_smart_contract_verified: false,
        is_verified_via_admin_panel: false,
        name: item.token.name,
        priority: 2,
        reputation: 'ok',
        symbol: item.token.symbol,
        token_type: item.token.type,
        token_url: `/token/${address}`,
        total_supply: decimal(item.token.totalSupply),
        type: 'token',
      };
    }
    case 'address': {
      const address = checksumAddress(item.address);
      return {
        address_hash: address,
        certified: false,
        ens_info: null,
        is_smart_contract_verified: false,
        name: null,
        priority: 0,
        reputation: 'ok',
        type: 'address',
        url: `/address/${address}`,
      };
    }
    case 'ens_domain': {
      const address = checksumAddress(item.address);
      return {
        address_hash: address,
        certified: false,
        ens_info: ensInfo(address, item.name),
        is_smart_contract_verified: false,
        name: null,
        priority: 0,
        reputation: 'ok',
        type: 'ens_domain',
        url: `/address/${address}`,
      };
    }
    case 'block':
      return {
        block_hash: item.block.hash,
        block_number: item.block.number,
        block_type: item.block.consensus ? 'block' : 'reorg',
        priority: 3,
        timestamp: item.block.timestamp,
        type: 'block',
        url: `/block/${item.block.hash}`,
      };
    case 'transaction':
      return {
        priority: 0,
        timestamp: item.transaction.timestamp,
        transaction_hash: item.transaction.hash,
        type: 'transaction',
        url: `/tx/${item.transaction.hash}`,
      };
  }
}

/** check-redirect: the page a query leads straight to, or none. */
export const RedirectSchema = Type.Object({
  parameter: Nullable(Type.String()),
  redirect: Type.Boolean(),
  type: Nullable(StringEnum(['address', 'block', 'transaction'])),
});

export type Redirect = Static<typeof RedirectSchema>;

export const noRedirect: Redirect = { parameter: null, redirect: false, type: null };

export function redirectView(type: 'address' | 'block' | 'transaction', parameter: string): Redirect {
  return { parameter: type === 'address' ? checksumAddress(parameter) : parameter, redirect: true, type };
}
