import type { Hex } from '../../model.js';
import { byteaFromHex } from '../encode.js';
import { type AddressItem, type Db, SqlParams, addressItem, keysetCondition } from './sql.js';

export interface WithdrawalItem {
  index: number;
  validatorIndex: number;
  receiver: AddressItem;
  /** Wei. */
  amount: bigint;
}

export interface WithdrawalKeyset {
  index: number;
}

interface WithdrawalRow {
  index: string;
  validator_index: string;
  address: Buffer;
  receiver_is_contract: boolean | null;
  amount: string;
}

/** The withdrawals of one block, highest index first, below the keyset if one is given. */
export async function listBlockWithdrawals(
  db: Db,
  blockHash: Hex,
  after: WithdrawalKeyset | null,
  limit: number,
): Promise<WithdrawalItem[]> {
  const params = new SqlParams();
  const conditions = [`w.block_hash = ${params.add(byteaFromHex(blockHash))}`];
  if (after !== null) conditions.push(keysetCondition(params, '<', [['w.index', after.index, 'bigint']]));
  const { rows } = await db.query<WithdrawalRow>(
    `SELECT w.index, w.validator_index, w.address, ra.is_contract AS receiver_is_contract, w.amount
     FROM (SELECT * FROM withdrawals w WHERE ${conditions.join(' AND ')} ORDER BY w.index DESC LIMIT ${params.add(limit)}) w
     LEFT JOIN addresses ra ON ra.hash = w.address
     ORDER BY w.index DESC`,
    params.values,
  );
  return rows.map((r) => ({
    index: Number(r.index),
    validatorIndex: Number(r.validator_index),
    receiver: addressItem(r.address, r.receiver_is_contract),
    amount: BigInt(r.amount),
  }));
}
