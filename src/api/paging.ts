import { type Static, type TObject, type TOptional, type TProperties, type TSchema, Type } from '@sinclair/typebox';
import type { Hex } from '../model.js';
import type { BlocksValidatedKeyset } from '../store/read/blocks.js';
import type { CoinBalanceKeyset } from '../store/read/coin-balances.js';
import type { InternalTransactionKeyset } from '../store/read/internal-transactions.js';
import type { AddressLogKeyset, TransactionLogKeyset } from '../store/read/logs.js';
import { type NftCollectionKeyset, nftTypeOrder } from '../store/read/nft-collections.js';
import type { TokenSearchKeyset } from '../store/read/search.js';
import type { TokenBalanceKeyset } from '../store/read/token-balances.js';
import type { TokenHolderItem, TokenHolderKeyset } from '../store/read/token-holders.js';
import type { TokenTransferItem, TokenTransferKeyset } from '../store/read/token-transfers.js';
import type { TokenItem } from '../store/read/tokens.js';
import type { TokenListItem, TokenListKeyset } from '../store/read/token-list.js';
import type { VerifiedContractsKeyset } from '../store/read/smart-contracts.js';
import type { TopAddressItem, TopAddressKeyset } from '../store/read/top-addresses.js';
import type { MinedTransactionKeyset, PendingTransactionKeyset } from '../store/read/transactions.js';
import type { WithdrawalKeyset } from '../store/read/withdrawals.js';
import { InvalidParametersError } from './errors.js';
import { AddressHashParam, FullHashParam, Nullable, StringEnum, decimal } from './schemas.js';
import { tokenTypes } from './token-types.js';

/**
 * Keyset paging, one codec per list. Pages hold 50 items; 51 items are fetched and the 51st only says
 * that a next page exists. next_page_params is built from the last item of the page, the client sends
 * its members back verbatim, and a partial set of them is a 422 naming each missing one.
 */

export const pageSize = 50;
export const fetchSize = pageSize + 1;

/** Accepted because next_page_params carries it; the page size stays 50 whatever it says. */
const ItemsCount = Type.Integer({ minimum: 1, maximum: pageSize, description: `an integer from 1 to ${pageSize}` });

type MemberValues<Members extends TProperties> = Static<TObject<Members>>;

type OptionalProperties<P extends TProperties> = { [K in keyof P]: TOptional<P[K]> };

export interface KeysetCodec<Members extends TProperties, Keyset, Item> {
  /** Querystring properties of the keyset members (and items_count), all optional. */
  readonly querystring: OptionalProperties<Members & { items_count: typeof ItemsCount }>;
  /** The members of next_page_params in a response (with items_count where the list carries it). */
  readonly responseMembers: TProperties;
  /** The keyset the client sent back, or null for the first page. */
  parse(query: Partial<MemberValues<Members>>): Keyset | null;
  /** Splits fetched items (up to fetchSize) into the page and its next_page_params. */
  page<T extends Item>(items: T[]): { items: T[]; nextPageParams: NextPageParams<Members> | null };
  /** The next_page_params of a page that ends with this item (for a list that pages some of its items only). */
  after(item: Item): NextPageParams<Members>;
}

export type NextPageParams<Members extends TProperties> = MemberValues<Members> & { items_count?: number };

interface KeysetSpec<Members extends TProperties, Keyset, Item> {
  members: Members;
  /** Whether next_page_params carries items_count (the spec lists it for some lists only). */
  itemsCount: boolean;
  toKeyset(values: MemberValues<Members>): Keyset;
  fromItem(item: Item): MemberValues<Members>;
}

function optional<P extends TProperties>(properties: P): OptionalProperties<P> {
  return Object.fromEntries(Object.entries(properties).map(([name, schema]) => [name, Type.Optional(schema)])) as OptionalProperties<P>;
}

// Alphabetical, as Blockscout's small JSON objects are.
function sortedProperties(properties: TProperties): TProperties {
  return Object.fromEntries(Object.entries(properties).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

export function defineKeyset<Members extends TProperties, Keyset, Item>(
  spec: KeysetSpec<Members, Keyset, Item>,
): KeysetCodec<Members, Keyset, Item> {
  const names = Object.keys(spec.members);
  const after = (item: Item): NextPageParams<Members> => {
    const members = spec.fromItem(item);
    return spec.itemsCount ? Object.assign({}, members, { items_count: pageSize }) : members;
  };
  return {
    querystring: optional(Object.assign({}, spec.members, { items_count: ItemsCount })),
    responseMembers: Object.assign({}, spec.members, spec.itemsCount ? { items_count: Type.Integer() } : {}),
    parse(query) {
      const values = query as Record<string, unknown>;
      const missing = names.filter((name) => values[name] === undefined);
      if (missing.length === names.length) return null;
      if (missing.length > 0) {
        const detail = `Missing: the members of next_page_params (${names.join(', ')}) are sent back together.`;
        throw new InvalidParametersError(missing.map((param) => ({ param, detail })));
      }
      return spec.toKeyset(query as MemberValues<Members>);
    },
    page(items) {
      const pageItems = items.slice(0, pageSize);
      const last = pageItems[pageItems.length - 1];
      if (items.length <= pageSize || last === undefined) return { items: pageItems, nextPageParams: null };
      return { items: pageItems, nextPageParams: after(last) };
    },
    after,
  };
}

/**
 * The response schema of next_page_params for a list paged by any of these codecs (E2 pages its
 * validated and pending lists differently). With several codecs every member is optional: the
 * serializer writes required members first, and members must come out in alphabetical order.
 */
export function nextPageParamsSchema(...codecs: Pick<KeysetCodec<TProperties, unknown, never>, 'responseMembers'>[]): TSchema {
  const members: TProperties = {};
  for (const codec of codecs) {
    for (const [name, schema] of Object.entries(codec.responseMembers)) {
      members[name] = codecs.length === 1 ? schema : Type.Optional(schema);
    }
  }
  return Nullable(Type.Object(sortedProperties(members)));
}

// PostgreSQL bigint and integer columns bound what a paging member may hold.
const BlockNumberMember = Type.Integer({
  minimum: 0,
  maximum: Number.MAX_SAFE_INTEGER,
  description: 'a block number: a non-negative integer',
});
const IntegerIndexMember = Type.Integer({
  minimum: 0,
  maximum: 2 ** 31 - 1,
  description: 'an index: a non-negative integer below 2^31',
});
const BigIntegerIndexMember = Type.Integer({
  minimum: 0,
  maximum: Number.MAX_SAFE_INTEGER,
  description: 'an index: a non-negative integer',
});
const InsertedAtMember = Type.String({
  format: 'date-time',
  // Year 0000 passes date-time but not PostgreSQL.
  pattern: '^(?!0000)[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]{1,6})?Z$',
  description: 'a UTC time as next_page_params gives it, such as 2024-05-01T12:00:00.123456Z',
});

export const transactionsKeyset = defineKeyset({
  members: { block_number: BlockNumberMember, index: IntegerIndexMember },
  itemsCount: true,
  toKeyset: (v): MinedTransactionKeyset => ({ blockNumber: v.block_number, index: v.index }),
  fromItem: (item: { blockNumber: number; index: number }) => ({ block_number: item.blockNumber, index: item.index }),
});

export const pendingTransactionsKeyset = defineKeyset({
  members: { inserted_at: InsertedAtMember, hash: FullHashParam },
  itemsCount: true,
  toKeyset: (v): PendingTransactionKeyset => ({ insertedAt: v.inserted_at, hash: v.hash.toLowerCase() as Hex }),
  fromItem: (item: { insertedAt: string; hash: string }) => ({ inserted_at: item.insertedAt, hash: item.hash }),
});

export const blocksValidatedKeyset = defineKeyset({
  members: { block_number: BlockNumberMember },
  itemsCount: true,
  toKeyset: (v): BlocksValidatedKeyset => ({ blockNumber: v.block_number }),
  fromItem: (item: { number: number }) => ({ block_number: item.number }),
});

export const withdrawalsKeyset = defineKeyset({
  members: { index: BigIntegerIndexMember },
  itemsCount: true,
  toKeyset: (v): WithdrawalKeyset => ({ index: v.index }),
  fromItem: (item: { index: number }) => ({ index: item.index }),
});

export const internalTransactionsKeyset = defineKeyset({
  members: { block_number: BlockNumberMember, index: IntegerIndexMember, transaction_index: IntegerIndexMember },
  itemsCount: true,
  toKeyset: (v): InternalTransactionKeyset => ({ blockNumber: v.block_number, transactionIndex: v.transaction_index, index: v.index }),
  fromItem: (item: { blockNumber: number; transactionIndex: number; index: number }) => ({
    block_number: item.blockNumber,
    index: item.index,
    transaction_index: item.transactionIndex,
  }),
});

type TokenTransferPosition = Pick<TokenTransferItem, 'blockNumber' | 'logIndex' | 'batchIndex'>;

const tokenTransferPosition = {
  block_number: BlockNumberMember,
  index: IntegerIndexMember,
  // Makes the key unique inside an ERC-1155 batch, whose items share block_number and index.
  batch_index: IntegerIndexMember,
};

const toTokenTransferKeyset = (v: { block_number: number; index: number; batch_index: number }): TokenTransferKeyset => ({
  blockNumber: v.block_number,
  logIndex: v.index,
  batchIndex: v.batch_index,
});

const tokenTransferMembers = (item: TokenTransferPosition) => ({
  block_number: item.blockNumber,
  index: item.logIndex,
  batch_index: item.batchIndex,
});

export const tokenTransfersKeyset = defineKeyset({
  members: tokenTransferPosition,
  itemsCount: false,
  toKeyset: toTokenTransferKeyset,
  fromItem: tokenTransferMembers,
});

const TokenIdMember = Type.String({ pattern: '^[0-9]{1,78}$', description: 'a token id: a non-negative integer' });

// A null member comes back as the text "null" (URLSearchParams writes it so).
const fromNullMember = (value: string | null): string | null => (value === 'null' || value === '' ? null : value);

/** A market figure of the price source (a price, a market cap), or null (also sent as "null" or ""). */
const MarketFigureMember = Nullable(
  Type.String({ pattern: '^([0-9]{1,40}(\\.[0-9]{1,40})?|null|)$', description: 'a decimal number, or null' }),
);

/** E4 carries the instance's token_id too, as the spec lists it. */
export const instanceTransfersKeyset = defineKeyset({
  members: Object.assign({}, tokenTransferPosition, { token_id: TokenIdMember }),
  itemsCount: false,
  toKeyset: toTokenTransferKeyset,
  fromItem: (item: TokenTransferPosition & { tokenId: bigint | null }) =>
    Object.assign(tokenTransferMembers(item), { token_id: String(item.tokenId) }),
});

/**
 * E1: value, token_name and token_type as the spec lists them (value a decimal string: balances exceed
 * what a JSON number holds exactly), made unique by the token's address and the item's id.
 */
export const tokenBalancesKeyset = defineKeyset({
  members: {
    value: Type.String({ pattern: '^[0-9]{1,80}$', description: 'a balance: a non-negative integer' }),
    token_name: Nullable(Type.String({ description: 'a token name' })),
    token_type: StringEnum(tokenTypes),
    token_contract_address_hash: AddressHashParam,
    token_id: Nullable(Type.String({ pattern: '^([0-9]{1,78}|null)$', description: 'a token id, or null' })),
  },
  itemsCount: true,
  toKeyset: (v): TokenBalanceKeyset => {
    const tokenId = fromNullMember(v.token_id);
    return {
      value: BigInt(v.value),
      tokenName: fromNullMember(v.token_name),
      tokenType: v.token_type,
      tokenAddress: v.token_contract_address_hash.toLowerCase() as Hex,
      tokenId: tokenId === null ? null : BigInt(tokenId),
    };
  },
  fromItem: (item: {
    value: bigint;
    tokenId: bigint | null;
    token: { name: string | null; type: (typeof tokenTypes)[number]; address: Hex };
  }) => ({
    value: item.value.toString(),
    token_name: item.token.name,
    token_type: item.token.type,
    token_contract_address_hash: item.token.address,
    token_id: decimal(item.tokenId),
  }),
});

/** E3: the collection's type and address, as the spec lists them (unique together). */
export const nftCollectionsKeyset = defineKeyset({
  members: { token_contract_address_hash: AddressHashParam, token_type: StringEnum(nftTypeOrder) },
  itemsCount: false,
  toKeyset: (v): NftCollectionKeyset => ({
    tokenType: v.token_type,
    tokenAddress: v.token_contract_address_hash.toLowerCase() as Hex,
  }),
  fromItem: (item: { token: { address: Hex; type: string } }) => ({
    token_contract_address_hash: item.token.address,
    token_type: item.token.type as NftCollectionKeyset['tokenType'],
  }),
});

/**
 * A transaction's logs, in log_index order as Blockscout lists them: next_page_params carries the
 * last item's block_number and index, and the page continues after that index (the block number,
 * the transaction's own, is checked as a member but does not move the page).
 */
export const transactionLogsKeyset = defineKeyset({
  members: { block_number: BlockNumberMember, index: IntegerIndexMember },
  itemsCount: true,
  toKeyset: (v): TransactionLogKeyset => ({ logIndex: v.index }),
  fromItem: (item: { blockNumber: number; logIndex: number }) => ({ block_number: item.blockNumber, index: item.logIndex }),
});

/** An address's logs, newest first: (block_number, index) descending, unique together. */
export const addressLogsKeyset = defineKeyset({
  members: { block_number: BlockNumberMember, index: IntegerIndexMember },
  itemsCount: true,
  toKeyset: (v): AddressLogKeyset => ({ blockNumber: v.block_number, logIndex: v.index }),
  fromItem: (item: { blockNumber: number; logIndex: number }) => ({ block_number: item.blockNumber, index: item.logIndex }),
});

const BalanceMember = Type.String({ pattern: '^[0-9]{1,80}$', description: 'a balance: a non-negative integer' });

/** A token's holders: value and address_hash as Blockscout pages them, made unique by the ERC-1155 id. */
export const tokenHoldersKeyset = defineKeyset({
  members: {
    address_hash: AddressHashParam,
    value: BalanceMember,
    token_id: Nullable(Type.String({ pattern: '^([0-9]{1,78}|null)$', description: 'a token id, or null' })),
  },
  itemsCount: true,
  toKeyset: (v): TokenHolderKeyset => {
    const tokenId = fromNullMember(v.token_id);
    return { value: BigInt(v.value), address: v.address_hash.toLowerCase() as Hex, tokenId: tokenId === null ? null : BigInt(tokenId) };
  },
  fromItem: (item: TokenHolderItem) => ({ address_hash: item.address.hash, value: item.value.toString(), token_id: decimal(item.tokenId) }),
});

/** The holders of one NFT id: value and address_hash, unique together. */
export const instanceHoldersKeyset = defineKeyset({
  members: { address_hash: AddressHashParam, value: BalanceMember },
  itemsCount: true,
  toKeyset: (v): Omit<TokenHolderKeyset, 'tokenId'> => ({ value: BigInt(v.value), address: v.address_hash.toLowerCase() as Hex }),
  fromItem: (item: TokenHolderItem) => ({ address_hash: item.address.hash, value: item.value.toString() }),
});

/** A token's NFT ids, highest first: Blockscout's unique_token, the last id of the page (a decimal string, ids exceed JSON numbers). */
export const tokenInstancesKeyset = defineKeyset({
  members: { unique_token: TokenIdMember },
  itemsCount: false,
  toKeyset: (v): bigint => BigInt(v.unique_token),
  fromItem: (item: { tokenId: bigint }) => ({ unique_token: item.tokenId.toString() }),
});

/** An address's coin balance history, newest first: block_number, one read per block. */
export const coinBalanceHistoryKeyset = defineKeyset({
  members: { block_number: BlockNumberMember },
  itemsCount: true,
  toKeyset: (v): CoinBalanceKeyset => ({ blockNumber: v.block_number }),
  fromItem: (item: { blockNumber: number }) => ({ block_number: item.blockNumber }),
});

/**
 * Search's tokens, most holders first, then by name (unnamed last), then by address: Blockscout's
 * token[holder_count] (a decimal string, as Blockscout sends it) and token[name], made unique by the
 * address; token[is_name_null] tells an unnamed token from one named "null" or "".
 */
export const searchTokensKeyset = defineKeyset({
  members: {
    'token[address_hash]': AddressHashParam,
    'token[holder_count]': Type.String({ pattern: '^-?[0-9]{1,18}$', description: 'a holder count: an integer' }),
    'token[is_name_null]': Type.Boolean({ description: 'true or false' }),
    'token[name]': Type.String({ description: 'a token name' }),
  },
  itemsCount: false,
  toKeyset: (v): TokenSearchKeyset => ({
    holdersCount: BigInt(v['token[holder_count]']),
    name: v['token[is_name_null]'] ? null : v['token[name]'],
    address: v['token[address_hash]'].toLowerCase() as Hex,
  }),
  fromItem: (token: TokenItem) => ({
    'token[address_hash]': token.address,
    'token[holder_count]': token.holdersCount.toString(),
    'token[is_name_null]': token.name === null,
    'token[name]': token.name ?? '',
  }),
});

export const verifiedContractsKeyset = defineKeyset({
  members: { smart_contract_id: BigIntegerIndexMember },
  itemsCount: true,
  toKeyset: (v): VerifiedContractsKeyset => ({ id: v.smart_contract_id }),
  fromItem: (item: { id: number }) => ({ smart_contract_id: item.id }),
});

/** The verified contracts by coin balance: the balance (null where none was read yet), made unique by the id. */
export const verifiedContractsByBalanceKeyset = defineKeyset({
  members: {
    coin_balance: Nullable(Type.String({ pattern: '^([0-9]{1,78}|null)$', description: 'a balance: a non-negative integer, or null' })),
    smart_contract_id: BigIntegerIndexMember,
  },
  itemsCount: true,
  toKeyset: (v): VerifiedContractsKeyset => {
    const balance = fromNullMember(v.coin_balance);
    return { id: v.smart_contract_id, value: balance === null ? null : BigInt(balance) };
  },
  fromItem: (item: { id: number; coinBalance: bigint | null }) => ({ coin_balance: decimal(item.coinBalance), smart_contract_id: item.id }),
});

/** The verified contracts by transaction count, made unique by the id. */
export const verifiedContractsByTransactionsKeyset = defineKeyset({
  members: {
    smart_contract_id: BigIntegerIndexMember,
    transactions_count: Type.Integer({
      minimum: 0,
      maximum: Number.MAX_SAFE_INTEGER,
      description: 'a transaction count: a non-negative integer',
    }),
  },
  itemsCount: true,
  toKeyset: (v): VerifiedContractsKeyset => ({ id: v.smart_contract_id, value: BigInt(v.transactions_count) }),
  fromItem: (item: { id: number; transactionsCount: number }) => ({
    smart_contract_id: item.id,
    transactions_count: item.transactionsCount,
  }),
});

/**
 * The token list, most holders first, then by name (unnamed last), then by address: Blockscout's
 * holders_count (a JSON number), name and is_name_null (an unnamed token's name is null, which comes
 * back as the text "null"), and contract_address_hash, which makes the key unique. Blockscout's
 * market_cap and fiat_value are left out: the list is not ordered by the price source's figures
 * (Blockscout puts the tokens with the largest market cap first), which the token rows do not hold.
 */
export const tokenListKeyset = defineKeyset({
  members: {
    contract_address_hash: AddressHashParam,
    fiat_value: MarketFigureMember,
    holders_count: Type.Integer({
      minimum: -Number.MAX_SAFE_INTEGER,
      maximum: Number.MAX_SAFE_INTEGER,
      description: 'a holder count: an integer',
    }),
    is_name_null: Type.Boolean({ description: 'true or false' }),
    market_cap: MarketFigureMember,
    name: Nullable(Type.String({ description: 'a token name' })),
  },
  itemsCount: true,
  toKeyset: (v): TokenListKeyset => ({
    marketCap: fromNullMember(v.market_cap),
    fiatValue: fromNullMember(v.fiat_value),
    holdersCount: BigInt(v.holders_count),
    name: v.is_name_null ? null : (v.name ?? ''),
    address: v.contract_address_hash.toLowerCase() as Hex,
  }),
  fromItem: (token: TokenListItem) => ({
    contract_address_hash: token.address,
    fiat_value: token.exchangeRate,
    holders_count: Number(token.holdersCount),
    is_name_null: token.ownName === null,
    market_cap: token.circulatingMarketCap,
    name: token.ownName,
  }),
});

/** The top accounts, largest coin balance first, then by address: Blockscout's fetched_coin_balance and hash, unique together. */
export const topAddressesKeyset = defineKeyset({
  members: { fetched_coin_balance: BalanceMember, hash: AddressHashParam },
  itemsCount: true,
  toKeyset: (v): TopAddressKeyset => ({ coinBalance: BigInt(v.fetched_coin_balance), address: v.hash.toLowerCase() as Hex }),
  fromItem: (item: TopAddressItem) => ({ fetched_coin_balance: item.coinBalance.toString(), hash: item.hash }),
});

/**
 * A transaction's state changes, Blockscout's one list paged by position: they are computed whole for
 * each request (a few per address the transaction touched), and items_count counts those shown so far,
 * across pages. state_changes is a member Blockscout sends back as null.
 */
export const stateChangesPaging = {
  querystring: {
    state_changes: Type.Optional(Type.String()),
    items_count: Type.Optional(Type.Integer({ minimum: 1, maximum: 2 ** 31 - 1, description: 'the state changes shown so far' })),
  },
  response: Nullable(Type.Object({ items_count: Type.Integer(), state_changes: Type.Null() })),
  page<T>(all: readonly T[], shown: number): { items: T[]; nextPageParams: { items_count: number; state_changes: null } | null } {
    const items = all.slice(shown, shown + pageSize);
    const next = shown + items.length;
    return { items, nextPageParams: next < all.length ? { items_count: next, state_changes: null } : null };
  },
};
