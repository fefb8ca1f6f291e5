import { type Static, Type } from '@sinclair/typebox';
import type { BlockDetailItem, BlockItem, BlockRewardItem } from '../../store/read/blocks.js';
import { DecimalString, HexString, Nullable, StringEnum, Timestamp, decimal } from '../schemas.js';
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
  type: StringEnum(['block', 'reorg', 'uncle']),
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

const rewardView = (reward: BlockRewardItem) => ({
  reward: reward.reward.toString(),
  type: rewardLabels[reward.type] ?? reward.type,
});

export function blockView(item: BlockItem): Block {
  return {
    base_fee_per_gas: decimal(item.baseFeePerGas),
    beacon_deposits_count: item.beaconDepositsCount,
    blob_gas_used: decimal(item.blobGasUsed),
    blob_transactions_count: item.blobTransactionsCount,
    burnt_fees: item.burntFees.toString(),
    burnt_fees_percentage: item.transactionFees === 0n ? null : percentage(item.burntFees, item.transactionFees),
    difficulty: decimal(item.difficulty),
    excess_blob_gas: decimal(item.excessBlobGas),
    extra_data: item.extraData,
    gas_limit: item.gasLimit.toString(),
    gas_target_percentage: item.gasLimit === 0n ? 0 : percentageAboveTarget(item.gasUsed, item.gasLimit, elasticityMultiplier),
    gas_used: item.gasUsed.toString(),
    gas_used_percentage: item.gasLimit === 0n ? 0 : percentage(item.gasUsed, item.gasLimit),
    hash: item.hash,
    height: item.number,
    // Internal transactions are counted only by the single-block endpoint.
    internal_transactions_count: null,
    is_pending_update: false,
    miner: addressInfo(item.miner),
    nonce: item.nonce,
    parent_hash: item.parentHash,
    priority_fee: item.priorityFee.toString(),
    rewards: item.rewards.map(rewardView),
    size: item.size,
    state_root: item.stateRoot,
    timestamp: item.timestamp,
    total_difficulty: decimal(item.totalDifficulty),
    transaction_fees: item.transactionFees.toString(),
    transactions_count: item.transactionsCount,
    type: item.consensus ? 'block' : item.nephewHash === null ? 'reorg' : 'uncle',
    uncles_hashes: item.uncles,
    withdrawals_count: item.withdrawalsCount,
  };
}

/**
 * A block as its own page renders it (Blockscout's BlockResponse): the list's fields but extra_data
 * and state_root, which that schema does not carry, with uncles as objects and the internal
 * transactions counted.
 */
export const BlockDetailSchema = Type.Object({
  ...Type.Omit(BlockSchema, ['extra_data', 'state_root', 'uncles_hashes', 'internal_transactions_count']).properties,
  internal_transactions_count: Nullable(Type.Integer()),
  uncles_hashes: Type.Array(Type.Object({ hash: HexString })),
});

export type BlockDetail = Static<typeof BlockDetailSchema>;

export function blockDetailView(item: BlockDetailItem): BlockDetail {
  const { extra_data: _extraData, state_root: _stateRoot, ...listed } = blockView(item);
  return Object.assign(listed, {
    internal_transactions_count: item.internalTransactionsCount,
    uncles_hashes: item.uncles.map((hash) => ({ hash })),
  });
}
