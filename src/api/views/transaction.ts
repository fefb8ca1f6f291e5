import { type Static, Type } from '@sinclair/typebox';
import type { ChainTiming } from '../../store/read/chain.js';
import type { TokenTransferItem } from '../../store/read/token-transfers.js';
import { type TransactionItem, type TransactionKind, transactionKinds } from '../../store/read/transactions.js';
import type { AuthorizationItem, BlobFieldsItem } from '../../store/read/typed-transactions.js';
import type { DecodedInput } from '../../decoding/index.js';
import type { DecodedTransaction } from '../contract-decoding.js';
import { methodName } from '../known-methods.js';
import { DecimalString, HexString, Nullable, StringEnum, Timestamp, decimal } from '../schemas.js';
import { type AddressInfo, AddressInfoSchema, addressInfo } from './address-info.js';
import { checksumAddress } from './checksum-address.js';
import { DecodedInputSchema } from './decoded.js';
import { TokenTransferSchema, tokenTransferView } from './token-transfer.js';

/** What a reverted transaction's revert_reason is: decoded on its page, its raw data in lists. */
const RevertReasonSchema = Type.Union([DecodedInputSchema, Type.Object({ raw: Nullable(HexString) }), Type.Null()]);

/** A transaction as list endpoints render it (token_transfers are not part of lists). */
export const TransactionSchema = Type.Object({
  actions: Type.Array(Type.Object({})),
  authorization_list: Type.Array(Type.Object({})),
  base_fee_per_gas: Nullable(DecimalString),
  block_number: Nullable(Type.Integer()),
  confirmation_duration: Type.Array(Type.Number()),
  confirmations: Type.Integer(),
  created_contract: Nullable(AddressInfoSchema),
  decoded_input: Nullable(DecodedInputSchema),
  // The coin's current price, as Blockscout gives it (null without a price source).
  exchange_rate: Nullable(Type.String()),
  fee: Type.Object({ type: StringEnum(['actual', 'maximum']), value: Nullable(DecimalString) }),
  fhe_operations_count: Type.Integer(),
  from: AddressInfoSchema,
  // The spec types it integer (CONTRACT: a JSON number, although Blockscout sends a string).
  gas_limit: Type.Integer(),
  gas_price: Nullable(DecimalString),
  gas_used: Nullable(DecimalString),
  has_error_in_internal_transactions: Nullable(Type.Boolean()),
  hash: HexString,
  historic_exchange_rate: Type.Null(),
  is_pending_update: Nullable(Type.Boolean()),
  max_fee_per_gas: Nullable(DecimalString),
  max_priority_fee_per_gas: Nullable(DecimalString),
  method: Nullable(Type.String()),
  nonce: Type.Integer(),
  position: Nullable(Type.Integer()),
  priority_fee: Nullable(DecimalString),
  raw_input: HexString,
  result: Type.String(),
  revert_reason: RevertReasonSchema,
  status: Nullable(StringEnum(['ok', 'error'])),
  timestamp: Nullable(Timestamp),
  to: Nullable(AddressInfoSchema),
  token_transfers: Type.Null(),
  token_transfers_overflow: Type.Null(),
  transaction_burnt_fee: Nullable(DecimalString),
  transaction_tag: Type.Null(),
  transaction_types: Type.Array(Type.String()),
  type: Nullable(Type.Integer()),
  value: DecimalString,
});

export type Transaction = Static<typeof TransactionSchema>;

const min = (a: bigint, b: bigint): bigint => (a < b ? a : b);

/** What the sender pays per gas above the base fee: min(max priority fee, max fee − base fee). */
function priorityFeePerGas(item: TransactionItem): bigint | null {
  if (item.maxPriorityFeePerGas === null || item.maxFeePerGas === null || item.baseFeePerGas === null) return null;
  return min(item.maxPriorityFeePerGas, item.maxFeePerGas - item.baseFeePerGas);
}

/** The stored price, else the EIP-1559 effective price. */
function gasPrice(item: TransactionItem): bigint | null {
  if (item.gasPrice !== null) return item.gasPrice;
  const priority = priorityFeePerGas(item);
  return priority === null || item.baseFeePerGas === null ? null : item.baseFeePerGas + priority;
}

function fee(item: TransactionItem): Transaction['fee'] {
  const price = gasPrice(item);
  if (item.gasUsed === null) return { type: 'maximum', value: decimal(price === null ? null : price * item.gasLimit) };
  return { type: 'actual', value: decimal(price === null ? null : price * item.gasUsed) };
}

function burntFee(item: TransactionItem): bigint | null {
  if (item.gasUsed === null || item.maxFeePerGas === null || item.baseFeePerGas === null) return null;
  return item.maxFeePerGas === 0n ? 0n : item.baseFeePerGas * item.gasUsed;
}

function priorityFee(item: TransactionItem): bigint | null {
  const perGas = priorityFeePerGas(item);
  return perGas === null || item.gasUsed === null ? null : perGas * item.gasUsed;
}

function result(item: TransactionItem): string {
  if (item.blockNumber === null) return 'pending';
  if (item.status === 1) return 'success';
  if (item.status === 0 && item.error !== null) return item.error;
  return 'awaiting_internal_transactions';
}

/**
 * The called method: the decoded function's name; else its name when known, else its selector; null
 * unless the input calls a contract.
 */
function method(item: TransactionItem, decoded: DecodedInput | null): string | null {
  return decoded !== null || item.to?.isContract === true ? methodName(decoded, item.input) : null;
}

function transactionTypes(item: TransactionItem): TransactionKind[] {
  const applies: Record<TransactionKind, boolean> = {
    coin_transfer: item.value > 0n,
    contract_call: item.to?.isContract === true,
    contract_creation: item.to === null,
    token_creation: item.createsToken,
    token_transfer: item.hasTokenTransfers,
  };
  return transactionKinds.filter((kind) => applies[kind]);
}

const embedded = (address: TransactionItem['to']): AddressInfo | null => (address === null ? null : addressInfo(address));

/**
 * `decodedInput`: the input decoded with its contract's ABI or a candidate of contract_methods
 * (src/api/contract-decoding.ts); `exchangeRate`: the coin's price from the price source.
 */
export function transactionView(
  item: TransactionItem,
  timing: ChainTiming,
  decodedInput: DecodedInput | null,
  exchangeRate: string | null,
): Transaction {
  const mined = item.blockNumber !== null;
  const outcome = result(item);
  return {
    actions: [],
    authorization_list: [],
    base_fee_per_gas: decimal(item.baseFeePerGas),
    block_number: item.blockNumber,
    confirmation_duration: mined && timing.averageBlockTimeMs !== null ? [0, timing.averageBlockTimeMs] : [],
    confirmations: mined ? Math.max(1 + (timing.head ?? item.blockNumber) - item.blockNumber, 1) : 0,
    created_contract: embedded(item.createdContract),
    decoded_input: decodedInput,
    exchange_rate: exchangeRate,
    fee: fee(item),
    fhe_operations_count: 0,
    from: addressInfo(item.from),
    gas_limit: Number(item.gasLimit),
    gas_price: decimal(gasPrice(item)),
    gas_used: decimal(item.gasUsed),
    has_error_in_internal_transactions: item.hasErrorInInternalTransactions,
    hash: item.hash,
    historic_exchange_rate: null,
    is_pending_update: mined ? false : null,
    max_fee_per_gas: decimal(item.maxFeePerGas),
    max_priority_fee_per_gas: decimal(item.maxPriorityFeePerGas),
    method: method(item, decodedInput),
    nonce: item.nonce,
    position: item.index,
    priority_fee: decimal(priorityFee(item)),
    raw_input: item.input,
    result: outcome,
    revert_reason: outcome.toLowerCase().includes('reverted') ? { raw: item.revertReason } : null,
    status: item.status === null ? null : item.status === 1 ? 'ok' : 'error',
    timestamp: item.timestamp,
    to: embedded(item.to),
    token_transfers: null,
    token_transfers_overflow: null,
    transaction_burnt_fee: decimal(burntFee(item)),
    transaction_tag: null,
    transaction_types: transactionTypes(item),
    type: item.type,
    value: item.value.toString(),
  };
}

/** How many token transfers a transaction's page embeds, as Blockscout's detail does. */
export const embeddedTransfersCount = 10;

const AuthorizationSchema = Type.Object({
  address_hash: Type.String(),
  // Null when the signature recovers no signer (Blockscout's schema has no such case).
  authority: Nullable(Type.String()),
  chain_id: Type.Integer(),
  nonce: DecimalString,
  r: DecimalString,
  s: DecimalString,
  status: Nullable(StringEnum(['ok', 'invalid_chain_id', 'invalid_signature', 'invalid_nonce'])),
  v: Type.Integer(),
});

/** A transaction as its own page renders it: the list's fields, with its first token transfers, its authorizations and blob fields. */
export const TransactionDetailSchema = Type.Object({
  ...TransactionSchema.properties,
  authorization_list: Type.Array(AuthorizationSchema),
  token_transfers: Nullable(Type.Array(TokenTransferSchema)),
  token_transfers_overflow: Nullable(Type.Boolean()),
  // Blob transactions only, as Blockscout's Ethereum chain type adds them.
  blob_gas_price: Type.Optional(DecimalString),
  blob_gas_used: Type.Optional(DecimalString),
  blob_versioned_hashes: Type.Optional(Type.Array(HexString)),
  burnt_blob_fee: Type.Optional(DecimalString),
  max_fee_per_blob_gas: Type.Optional(DecimalString),
});

export type TransactionDetail = Static<typeof TransactionDetailSchema>;

/** What a transaction's page shows beside its list item. */
export interface TransactionDetailParts {
  /** Its first token transfers by log index, one more than are shown if there are more: that one only says that the list overflows. */
  transfers: TokenTransferItem[];
  /** A blob transaction's fields; null for any other. */
  blob: BlobFieldsItem | null;
  authorizations: AuthorizationItem[];
  decoded: DecodedTransaction;
  /** The coin's current price from the price source; null without one. */
  exchangeRate: string | null;
}

const authorizationView = (a: AuthorizationItem): Static<typeof AuthorizationSchema> => ({
  address_hash: checksumAddress(a.address),
  authority: a.authority === null ? null : checksumAddress(a.authority),
  chain_id: Number(a.chainId),
  nonce: a.nonce.toString(),
  r: a.r.toString(),
  s: a.s.toString(),
  // Whether the nonce matched is not checked: an authorization that is not known to be invalid has no status.
  status: a.invalidity,
  v: a.yParity,
});

function blobView(blob: BlobFieldsItem | null): Partial<TransactionDetail> {
  if (blob === null) return {};
  return {
    blob_gas_price: blob.blobGasPrice.toString(),
    blob_gas_used: blob.blobGasUsed.toString(),
    blob_versioned_hashes: blob.versionedHashes,
    burnt_blob_fee: (blob.blobGasUsed * blob.blobGasPrice).toString(),
    max_fee_per_blob_gas: blob.maxFeePerBlobGas.toString(),
  };
}

/** The detail view. */
export function transactionDetailView(item: TransactionItem, timing: ChainTiming, parts: TransactionDetailParts): TransactionDetail {
  const listed = transactionView(item, timing, parts.decoded.input, parts.exchangeRate);
  return Object.assign(listed, {
    // Decoded on the page only, as Blockscout does; a list shows the raw data.
    revert_reason: listed.revert_reason !== null && parts.decoded.revertReason !== null ? parts.decoded.revertReason : listed.revert_reason,
    authorization_list: parts.authorizations.map(authorizationView),
    // Each made by this transaction: each names its method, as the token transfer lists do.
    token_transfers: parts.transfers
      .slice(0, embeddedTransfersCount)
      .map((transfer) => tokenTransferView(transfer, methodName(parts.decoded.input, item.input))),
    token_transfers_overflow: parts.transfers.length > embeddedTransfersCount,
    ...blobView(parts.blob),
  });
}
