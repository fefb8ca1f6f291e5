import { type Static, Type } from '@sinclair/typebox';
import type { AddressCountersItem, AddressSummaryItem, AddressTabCountsItem } from '../../store/read/addresses.js';
import { DecimalString, Nullable } from '../schemas.js';
import { BareAddressInfoSchema, bareAddressInfo } from './address-info.js';
import { checksumAddress } from './checksum-address.js';
import { TokenSchema, tokenView } from './token.js';

/**
 * Blockscout's AddressResponse: the address as embedded elsewhere, with the page's own members. Names,
 * tags, proxies, verification, ENS and watchlists are not indexed: null or []. exchange_rate is the
 * coin's price from the price source. coin_balance and block_number_balance_updated_at come from the
 * latest read of the native balance (null until the coin balance stage has read it).
 */
export const AddressSchema = Type.Object({
  ...BareAddressInfoSchema.properties,
  block_number_balance_updated_at: Nullable(Type.Integer()),
  coin_balance: Nullable(DecimalString),
  creation_status: Nullable(Type.String()),
  creation_transaction_hash: Nullable(Type.String()),
  creator_address_hash: Nullable(Type.String()),
  exchange_rate: Nullable(Type.String()),
  has_beacon_chain_withdrawals: Type.Boolean(),
  has_logs: Type.Boolean(),
  has_token_transfers: Type.Boolean(),
  has_tokens: Type.Boolean(),
  has_validated_blocks: Type.Boolean(),
  token: Nullable(TokenSchema),
  watchlist_address_id: Nullable(Type.Integer()),
});

/** `exchangeRate`: the coin's price from the price source, as Blockscout gives it on the address page. */
export function addressView(address: AddressSummaryItem, exchangeRate: string | null): Static<typeof AddressSchema> {
  const creation = address.creation;
  return Object.assign(bareAddressInfo(address), {
    block_number_balance_updated_at: address.coinBalance?.blockNumber ?? null,
    coin_balance: address.coinBalance === null ? null : address.coinBalance.value.toString(),
    creation_status: creation === null ? null : creation.succeeded ? 'success' : 'failed',
    creation_transaction_hash: creation?.transactionHash ?? null,
    creator_address_hash: creation === null ? null : checksumAddress(creation.creator),
    exchange_rate: exchangeRate,
    has_beacon_chain_withdrawals: address.hasWithdrawals,
    has_logs: address.hasLogs,
    has_token_transfers: address.hasTokenTransfers,
    has_tokens: address.hasTokens,
    has_validated_blocks: address.hasValidatedBlocks,
    token: address.token === null ? null : tokenView(address.token),
    watchlist_address_id: null,
  });
}

/** Blockscout's AddressCounters: decimal strings. */
export const AddressCountersSchema = Type.Object({
  gas_usage_count: DecimalString,
  token_transfers_count: DecimalString,
  transactions_count: DecimalString,
  validations_count: DecimalString,
});

export function addressCountersView(counters: AddressCountersItem): Static<typeof AddressCountersSchema> {
  return {
    gas_usage_count: counters.gasUsage.toString(),
    token_transfers_count: counters.tokenTransfers.toString(),
    transactions_count: counters.transactions.toString(),
    validations_count: counters.validations.toString(),
  };
}

/** Blockscout's AddressTabsCounters: integers, each capped. */
export const AddressTabsCountersSchema = Type.Object({
  internal_transactions_count: Type.Integer(),
  logs_count: Type.Integer(),
  token_balances_count: Type.Integer(),
  token_transfers_count: Type.Integer(),
  transactions_count: Type.Integer(),
  validations_count: Type.Integer(),
  withdrawals_count: Type.Integer(),
});

export function addressTabsCountersView(counts: AddressTabCountsItem): Static<typeof AddressTabsCountersSchema> {
  return {
    internal_transactions_count: counts.internalTransactions,
    logs_count: counts.logs,
    token_balances_count: counts.tokenBalances,
    token_transfers_count: counts.tokenTransfers,
    transactions_count: counts.transactions,
    validations_count: counts.validations,
    withdrawals_count: counts.withdrawals,
  };
}
