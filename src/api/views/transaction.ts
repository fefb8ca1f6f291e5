import { type Static, Type } from '@sinclair/typebox';
import type { Hex } from '../../model.js';
import type { ChainTiming } from '../../store/read/chain.js';
import { type TransactionKind, type TransactionRow, transactionKinds } from '../../store/read/transactions.js';
import { knownMethodName } from '../known-methods.js';
import { DecimalString, HexString, Nullable, StringEnum, Timestamp } from '../schemas.js';
import { type AddressInfo, AddressInfoSchema, addressInfo } from './address-info.js';

/** A transaction as list endpoints render it (token_transfers and decoded input are not part of lists). */
export const TransactionSchema = Type.Object({
  actions: Type.Array(Type.Object({})),
  authorization_list: Type.Array(Type.Object({})),
  base_fee_per_gas: Nullable(DecimalString),
  block_number: Nullable(Type.Integer()),
  confirmation_duration: Type.Array(Type.Number()),
  confirmations: Type.Integer(),
  created_contract: Nullable(AddressInfoSchema),
  decoded_input: Type.Null(),
  exchange_rate: Type.Null(),
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
  revert_reason: Nullable(Type.Object({ raw: Nullable(HexString) })),
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

const decimal = (value: bigint | null): string | null => (value === null ? null : value.toString());
const min = (a: bigint, b: bigint): bigint => (a < b ? a : b);

/** What the sender pays per gas above the base fee: min(max priority fee, max fee − base fee). */
function priorityFeePerGas(row: TransactionRow): bigint | null {
  if (row.maxPriorityFeePerGas === null || row.maxFeePerGas === null || row.baseFeePerGas === null) return null;
  return min(row.maxPriorityFeePerGas, row.maxFeePerGas - row.baseFeePerGas);
}

/** The stored price, else the EIP-1559 effective price. */
function gasPrice(row: TransactionRow): bigint | null {
  if (row.gasPrice !== null) return row.gasPrice;
  const priority = priorityFeePerGas(row);
  return priority === null || row.baseFeePerGas === null ? null : row.baseFeePerGas + priority;
}

function fee(row: TransactionRow): Transaction['fee'] {
  const price = gasPrice(row);
  if (row.gasUsed === null) return { type: 'maximum', value: decimal(price === null ? null : price * row.gasLimit) };
  return { type: 'actual', value: decimal(price === null ? null : price * row.gasUsed) };
}

function burntFee(row: TransactionRow): bigint | null {
  if (row.gasUsed === null || row.maxFeePerGas === null || row.baseFeePerGas === null) return null;
  return row.maxFeePerGas === 0n ? 0n : row.baseFeePerGas * row.gasUsed;
}

function priorityFee(row: TransactionRow): bigint | null {
  const perGas = priorityFeePerGas(row);
  return perGas === null || row.gasUsed === null ? null : perGas * row.gasUsed;
}

function result(row: TransactionRow): string {
  if (row.blockNumber === null) return 'pending';
  if (row.status === 1) return 'success';
  if (row.status === 0 && row.error !== null) return row.error;
  return 'awaiting_internal_transactions';
}

const selectorOf = (input: Hex): Hex | null => (input.length >= 10 ? (input.slice(0, 10) as Hex) : null);

/** The called method: its name when known, else its selector; null unless the input calls a contract. */
function method(row: TransactionRow): string | null {
  const selector = selectorOf(row.input);
  if (selector === null || row.to?.isContract !== true) return null;
  return knownMethodName(selector) ?? selector;
}

function transactionTypes(row: TransactionRow): TransactionKind[] {
  const applies: Record<TransactionKind, boolean> = {
    coin_transfer: row.value > 0n,
    contract_call: row.to?.isContract === true,
    contract_creation: row.to === null,
    token_creation: row.createsToken,
    token_transfer: row.hasTokenTransfers,
  };
  return transactionKinds.filter((kind) => applies[kind]);
}

const embedded = (address: TransactionRow['to']): AddressInfo | null => (address === null ? null : addressInfo(address));

export function transactionView(row: TransactionRow, timing: ChainTiming): Transaction {
  const mined = row.blockNumber !== null;
  const outcome = result(row);
  return {
    actions: [],
    authorization_list: [],
    base_fee_per_gas: decimal(row.baseFeePerGas),
    block_number: row.blockNumber,
    confirmation_duration: mined && timing.averageBlockTimeMs !== null ? [0, timing.averageBlockTimeMs] : [],
    confirmations: mined ? Math.max(1 + (timing.head ?? row.blockNumber) - row.blockNumber, 1) : 0,
    created_contract: embedded(row.createdContract),
    decoded_input: null,
    exchange_rate: null,
    fee: fee(row),
    fhe_operations_count: 0,
    from: addressInfo(row.from),
    gas_limit: Number(row.gasLimit),
    gas_price: decimal(gasPrice(row)),
    gas_used: decimal(row.gasUsed),
    has_error_in_internal_transactions: row.hasErrorInInternalTransactions,
    hash: row.hash,
    historic_exchange_rate: null,
    is_pending_update: mined ? false : null,
    max_fee_per_gas: decimal(row.maxFeePerGas),
    max_priority_fee_per_gas: decimal(row.maxPriorityFeePerGas),
    method: method(row),
    nonce: row.nonce,
    position: row.index,
    priority_fee: decimal(priorityFee(row)),
    raw_input: row.input,
    result: outcome,
    revert_reason: outcome.toLowerCase().includes('reverted') ? { raw: row.revertReason } : null,
    status: row.status === null ? null : row.status === 1 ? 'ok' : 'error',
    timestamp: row.timestamp,
    to: embedded(row.to),
    token_transfers: null,
    token_transfers_overflow: null,
    transaction_burnt_fee: decimal(burntFee(row)),
    transaction_tag: null,
    transaction_types: transactionTypes(row),
    type: row.type,
    value: row.value.toString(),
  };
}
