import { type Static, Type } from '@sinclair/typebox';
import type { BlockRewardRow, BlockRow } from '../../store/read/blocks.js';
import { DecimalString, HexString, Nullable, StringEnum, Timestamp } from '../schemas.js';
import { AddressInfoSchema, addressInfo } from './address-info.js';
import { percentage, percentageAboveTarget } from './percentage.js';

/** EIP-1559: the gas target is the gas limit divided by this. */
const elasticityMultiplier = 2n;

export const BlockSchema = Type.Object({
  base_fee_per_gas: Nullable(DecimalString),
  beacon_deposits_count: Nullable(Type.Integer()),
  blob_gas_used: Nullable(DecimalString),
  blob_transactions_count: Type.Integer(),
  burnt_fees: DecimalString,
  burnt_fees_percentage: Nullable(Type.Number()),
  difficulty: Nullable(DecimalString),
  excess_blob_gas: Nullable(DecimalString),
  extra_data: HexString,
  gas_limit: DecimalString,
  gas_target_percentage: Type.Number(),
  gas_used: DecimalString,
  gas_used_percentage: Type.Number(),
  hash: HexString,
  height: Type.Integer(),
  internal_transactions_count: Type.Null(),
  is_pending_update: Type.Boolean(),
  miner: AddressInfoSchema,
  nonce: Nullable(HexString),
  parent_hash: HexString,
  priority_fee: DecimalString,
  rewards: Type.Array(Type.Object({ reward: DecimalString, type: Type.String() })),
  size: Nullable(Type.Integer()),
  state_root: HexString,
  timestamp: Timestamp,
  total_difficulty: Nullable(DecimalString),
  transaction_fees: DecimalString,
  transactions_count: Type.Integer(),
  type: StringEnum(['block', 'reorg']),
  uncles_hashes: Type.Array(HexString),
  withdrawals_count: Type.Integer(),
});

export type Block = Static<typeof BlockSchema>;

// The spec names rewards by these labels (Blockscout's block page wording).
const rewardLabels: Record<string, string> = {
  validator: 'Miner Reward',
  emission_funds: 'Emission Reward',
  uncle: 'Uncle Reward',
};

const rewardView = (reward: BlockRewardRow) => ({
  reward: reward.reward.toString(),
  type: rewardLabels[reward.type] ?? reward.type,
});

const decimal = (value: bigint | null): string | null => (value === null ? null : value.toString());

export function blockView(row: BlockRow): Block {
  return {
    base_fee_per_gas: decimal(row.baseFeePerGas),
    beacon_deposits_count: row.beaconDepositsCount,
    blob_gas_used: decimal(row.blobGasUsed),
    blob_transactions_count: row.blobTransactionsCount,
    burnt_fees: row.burntFees.toString(),
    burnt_fees_percentage: row.transactionFees === 0n ? null : percentage(row.burntFees, row.transactionFees),
    difficulty: decimal(row.difficulty),
    excess_blob_gas: decimal(row.excessBlobGas),
    extra_data: row.extraData,
    gas_limit: row.gasLimit.toString(),
    gas_target_percentage:
      row.gasLimit === 0n ? 0 : percentageAboveTarget(row.gasUsed, row.gasLimit, elasticityMultiplier),
    gas_used: row.gasUsed.toString(),
    gas_used_percentage: row.gasLimit === 0n ? 0 : percentage(row.gasUsed, row.gasLimit),
    hash: row.hash,
    height: row.number,
    // Internal transactions are counted only by the single-block endpoint.
    internal_transactions_count: null,
    is_pending_update: false,
    miner: addressInfo(row.miner),
    nonce: row.nonce,
    parent_hash: row.parentHash,
    priority_fee: row.priorityFee.toString(),
    rewards: row.rewards.map(rewardView),
    size: row.size,
    state_root: row.stateRoot,
    timestamp: row.timestamp,
    total_difficulty: decimal(row.totalDifficulty),
    transaction_fees: row.transactionFees.toString(),
    transactions_count: row.transactionsCount,
    // Blocks that lost consensus are former main-chain blocks: uncles are only ever stored as hashes.
    type: row.consensus ? 'block' : 'reorg',
    uncles_hashes: row.uncles,
    withdrawals_count: row.withdrawalsCount,
  };
}
