import { type Static, Type } from '@sinclair/typebox';
import type { WithdrawalRow } from '../../store/read/withdrawals.js';
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

export function blockWithdrawalView(row: WithdrawalRow): BlockWithdrawal {
  return {
    amount: row.amount.toString(),
    index: row.index,
    receiver: addressInfo(row.receiver),
    validator_index: row.validatorIndex,
  };
}
