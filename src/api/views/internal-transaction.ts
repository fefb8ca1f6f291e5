import { Type } from '@sinclair/typebox';
import type { InternalTransactionRow } from '../../store/read/internal-transactions.js';
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
export function internalTransactionView(row: InternalTransactionRow) {
  const to = row.to ?? row.createdContract;
  return {
    block_number: row.blockNumber,
    created_contract: row.createdContract === null ? null : addressInfo(row.createdContract),
    error: row.error,
    from: addressInfo(row.from),
    gas_limit: (row.gas ?? 0n).toString(),
    index: row.index,
    success: row.error === null,
    timestamp: row.timestamp,
    to: to === null ? null : addressInfo(to),
    transaction_hash: row.transactionHash,
    transaction_index: row.transactionIndex,
    type: row.callType ?? row.type,
    value: row.value.toString(),
  };
}
