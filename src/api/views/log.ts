import { type Static, Type } from '@sinclair/typebox';
import type { DecodedLog } from '../../decoding/index.js';
import type { AddressItem } from '../../store/read/sql.js';
import type { LogItem } from '../../store/read/logs.js';
import { Nullable, Timestamp } from '../schemas.js';
import { AddressInfoSchema, addressInfo } from './address-info.js';
import { DecodedLogSchema } from './decoded.js';

/**
 * A receipt log, keys in alphabetical order. `topics` is always four entries, null past the log's
 * own; `decoded` is null when no ABI decodes it.
 */
export const LogSchema = Type.Object({
  address: AddressInfoSchema,
  block_hash: Type.String(),
  block_number: Type.Integer(),
  block_timestamp: Nullable(Timestamp),
  data: Type.String(),
  decoded: Nullable(DecodedLogSchema),
  index: Type.Integer(),
  smart_contract: Nullable(AddressInfoSchema),
  topics: Type.Array(Nullable(Type.String())),
  transaction_hash: Type.String(),
});

export type Log = Static<typeof LogSchema>;

/**
 * `smartContract`: the recipient of the log's transaction in a transaction's list, as Blockscout
 * renders it there; null in an address's list, where Blockscout leaves it null too.
 */
export function logView(item: LogItem, smartContract: AddressItem | null, decoded: DecodedLog | null): Log {
  return {
    address: addressInfo(item.address),
    block_hash: item.blockHash,
    block_number: item.blockNumber,
    block_timestamp: item.timestamp,
    data: item.data,
    decoded,
    index: item.logIndex,
    smart_contract: smartContract === null ? null : addressInfo(smartContract),
    topics: item.topics,
    transaction_hash: item.transactionHash,
  };
}
