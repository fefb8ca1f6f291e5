import type { Hex } from '../../model.js';
import { byteaFromHex } from '../encode.js';
import { type AddressItem, type Db, SqlParams, addressItem, isoTimestamp, keysetCondition } from './sql.js';

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
  return rows.map(toWithdrawalItem);
}

const toWithdrawalItem = (r: WithdrawalRow): WithdrawalItem => ({
  index: Number(r.index),
  validatorIndex: Number(r.validator_index),
  receiver: addressItem(r.address, r.receiver_is_contract),
  amount: BigInt(r.amount),
});

/** A withdrawal as the chain-wide list gives it: with its block's number and time. */
export interface ListedWithdrawalItem extends WithdrawalItem {
  blockNumber: number;
  /** ISO 8601. */
  timestamp: string;
}

/** GET /api/v2/withdrawals: every withdrawal, highest index first, below the keyset if one is given (withdrawals_index). */
export async function listWithdrawals(db: Db, after: WithdrawalKeyset | null, limit: number): Promise<ListedWithdrawalItem[]> {
  const params = new SqlParams();
  const below = after === null ? '' : `WHERE ${keysetCondition(params, '<', [['w.index', after.index, 'bigint']])}`;
  const { rows } = await db.query<WithdrawalRow & { block_number: string; timestamp: string }>(
    `SELECT w.index, w.validator_index, w.address, ra.is_contract AS receiver_is_contract, w.amount, w.block_number,
            ${isoTimestamp('b.timestamp')} AS timestamp
     FROM (SELECT * FROM withdrawals w ${below} ORDER BY w.index DESC LIMIT ${params.add(limit)}) w
     JOIN blocks b ON b.hash = w.block_hash
     LEFT JOIN addresses ra ON ra.hash = w.address
     ORDER BY w.index DESC`,
    params.values,
  );
  return rows.map((r) => Object.assign(toWithdrawalItem(r), { blockNumber: Number(r.block_number), timestamp: r.timestamp }));
}
