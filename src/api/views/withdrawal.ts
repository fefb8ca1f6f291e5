import { type Static, Type } from '@sinclair/typebox';
import type { ListedWithdrawalItem, WithdrawalItem } from '../../store/read/withdrawals.js';
import { DecimalString, Timestamp } from '../schemas.js';
import { AddressInfoSchema, addressInfo } from './address-info.js';

/** A withdrawal as the block-withdrawals list renders it: without block_number and timestamp. */
export const BlockWithdrawalSchema = Type.Object({
  amount: DecimalString,
  index: Type.Integer(),
  receiver: AddressInfoSchema,
  validator_index: Type.Integer(),
});

export type BlockWithdrawal = Static<typeof BlockWithdrawalSchema>;

export function blockWithdrawalView(item: WithdrawalItem): BlockWithdrawal {
  return {
    amount: item.amount.toString(),
    index: item.index,
    receiver: addressInfo(item.receiver),
    validator_index: item.validatorIndex,
  };
}

/** A withdrawal as the chain-wide list renders it: with its block's number and time. */
export const WithdrawalSchema = Type.Object({
  amount: DecimalString,
  block_number: Type.Integer(),
  index: Type.Integer(),
  receiver: AddressInfoSchema,
  timestamp: Timestamp,
  validator_index: Type.Integer(),
});

export function withdrawalView(item: ListedWithdrawalItem): Static<typeof WithdrawalSchema> {
  const { amount, index, receiver, validator_index } = blockWithdrawalView(item);
  return { amount, block_number: item.blockNumber, index, receiver, timestamp: item.timestamp, validator_index };
}
