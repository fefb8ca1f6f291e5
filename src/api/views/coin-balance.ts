import { type Static, Type } from '@sinclair/typebox';
import type { CoinBalanceHistoryItem } from '../../store/read/coin-balances.js';
import { DecimalString, Nullable, Timestamp } from '../schemas.js';

/** Blockscout's CoinBalance, keys in alphabetical order: one read of an address's native balance. */
export const CoinBalanceSchema = Type.Object({
  block_number: Type.Integer(),
  block_timestamp: Timestamp,
  delta: DecimalString,
  transaction_hash: Nullable(Type.String()),
  value: DecimalString,
});

export function coinBalanceView(item: CoinBalanceHistoryItem): Static<typeof CoinBalanceSchema> {
  return {
    block_number: item.blockNumber,
    block_timestamp: item.blockTimestamp,
    delta: item.delta.toString(),
    transaction_hash: item.transactionHash,
    value: item.value.toString(),
  };
}
