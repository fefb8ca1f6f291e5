import { Type } from '@sinclair/typebox';
import type { InternalTransactionItem } from '../../store/read/internal-transactions.js';
import { DecimalString, Nullable, Timestamp } from '../schemas.js';
import { AddressInfoSchema, addressInfo } from './address-info.js';

/** An E7 item, keys in alphabetical order. */
export const InternalTransactionSchema = Type.Object({
  block_number: Type.Integer(),
  created_contract: Nullable(AddressInfoSchema),
  error: Nullable(Type.String()),
  from: AddressInfoSchema,
  gas_limit: DecimalString,
  index: Type.Integer(),
  success: Type.Boolean(),
  timestamp: Timestamp,
  to: Nullable(AddressInfoSchema),
  transaction_hash: Type.String(),
  transaction_index: Type.Integer(),
  type: Type.String(),
  value: DecimalString,
});

/** As Blockscout renders it: the call type for calls, the created contract as `to` of a creation. */
export function internalTransactionView(item: InternalTransactionItem) {
  const to = item.to ?? item.createdContract;
  return {
    block_number: item.blockNumber,
    created_contract: item.createdContract === null ? null : addressInfo(item.createdContract),
    error: item.error,
    from: addressInfo(item.from),
    gas_limit: (item.gas ?? 0n).toString(),
    index: item.index,
    success: item.error === null,
    timestamp: item.timestamp,
    to: to === null ? null : addressInfo(to),
    transaction_hash: item.transactionHash,
    transaction_index: item.transactionIndex,
    type: item.callType ?? item.type,
    value: item.value.toString(),
  };
}
