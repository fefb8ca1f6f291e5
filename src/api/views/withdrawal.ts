import { type Static, Type } from '@sinclair/typebox';
import type { WithdrawalItem } from '../../store/read/withdrawals.js';
import { DecimalString } from '../schemas.js';
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
