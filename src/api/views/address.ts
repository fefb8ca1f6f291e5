import { type Static, Type } from '@sinclair/typebox';
import type { AddressCountersItem, AddressSummaryItem, AddressTabCountsItem } from '../../store/read/addresses.js';
import { DecimalString, Nullable } from '../schemas.js';
import { checksumAddress } from './checksum-address.js';
import { TokenSchema, tokenView } from './token.js';

/**
 * Blockscout's AddressResponse, keys in alphabetical order. Names, tags, proxies, verification, ENS,
 * watchlists and market data are not indexed: null or []. coin_balance and block_number_balance_updated_at
 * come from the latest read of the native balance (null until the coin balance stage has read it).
 */
export const AddressSchema = Type.Object({
  block_number_balance_updated_at: Nullable(Type.Integer()),
  coin_balance: Nullable(DecimalString),
  creation_status: Nullable(Type.String()),
  creation_transaction_hash: Nullable(Type.String()),
  creator_address_hash: Nullable(Type.String()),
  ens_domain_name: Nullable(Type.String()),
  exchange_rate: Nullable(Type.String()),
  has_beacon_chain_withdrawals: Type.Boolean(),
  has_logs: Type.Boolean(),
  has_token_transfers: Type.Boolean(),
  has_tokens: Type.Boolean(),
  has_validated_blocks: Type.Boolean(),
  hash: Type.String(),
  implementations: Type.Array(Type.Object({ address_hash: Type.String(), name: Nullable(Type.String()) })),
  is_contract: Type.Boolean(),
  is_scam: Type.Boolean(),
  is_verified: Nullable(Type.Boolean()),
  metadata: Nullable(Type.Object({})),
  name: Nullable(Type.String()),
  private_tags: Type.Array(Type.Object({})),
  proxy_type: Nullable(Type.String()),
  public_tags: Type.Array(Type.Object({})),
  reputation: Type.String(),
  token: Nullable(TokenSchema),
  watchlist_address_id: Nullable(Type.Integer()),
  watchlist_names: Type.Array(Type.Object({})),
});

export function addressView(address: AddressSummaryItem): Static<typeof AddressSchema> {
  const creation = address.creation;
  return {
    block_number_balance_updated_at: address.coinBalance?.blockNumber ?? null,
    coin_balance: address.coinBalance === null ? null : address.coinBalance.value.toString(),
    creation_status: creation === null ? null : creation.succeeded ? 'success' : 'failed',
    creation_transaction_hash: creation?.transactionHash ?? null,
    creator_address_hash: creation === null ? null : checksumAddress(creation.creator),
    ens_domain_name: null,
    exchange_rate: null,
    has_beacon_chain_withdrawals: address.hasWithdrawals,
    has_logs: address.hasLogs,
    has_token_transfers: address.hasTokenTransfers,
    has_tokens: address.hasTokens,
    has_validated_blocks: address.hasValidatedBlocks,
    hash: checksumAddress(address.hash),
    implementations: [],
    is_contract: address.isContract,
    is_scam: false,
    is_verified: null,
    metadata: null,
    name: null,
    private_tags: [],
    proxy_type: null,
    public_tags: [],
    reputation: 'ok',
    token: address.token === null ? null : tokenView(address.token),
    watchlist_address_id: null,
    watchlist_names: [],
  };
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
