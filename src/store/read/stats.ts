import { indexedHead } from '../index-progress.js';
import type { Hex } from '../../model.js';
import { byteaFromHex, hexFromBytea } from '../encode.js';
import type { Db } from './sql.js';

/** The chain's totals, kept with the block writes (chain_totals), zero before the first block. */
export interface ChainTotalsItem {
  blocks: bigint;
  transactions: bigint;
  gasUsed: bigint;
  /** Addresses with a transaction, a token transfer or a mined block. */
  addresses: bigint;
}

export async function readChainTotals(db: Db): Promise<ChainTotalsItem> {
  const { rows } = await db.query<{ blocks: string; transactions: string; gas_used: string; addresses: string }>(
    `SELECT coalesce(max(blocks), 0) AS blocks, coalesce(max(transactions), 0) AS transactions,
            coalesce(max(gas_used), 0) AS gas_used, coalesce(max(addresses), 0) AS addresses
     FROM chain_totals`,
  );
  const row = rows[0]!;
  return {
    blocks: BigInt(row.blocks),
    transactions: BigInt(row.transactions),
    gasUsed: BigInt(row.gas_used),
    addresses: BigInt(row.addresses),
  };
}

/** How far the index has come: its highest consensus block, how many it holds, how many are still to trace. */
export interface IndexingProgressItem {
  highest: bigint | null;
  blocks: bigint;
  /** Consensus blocks the trace stage has not traced yet; null when not asked. */
  untraced: bigint | null;
}

/** The trace backlog is counted only when asked (traces indexed): it is one range of the blocks_untraced index. */
export async function readIndexingProgress(db: Db, countUntraced: boolean): Promise<IndexingProgressItem> {
  const { rows } = await db.query<{ highest: string | null; blocks: string | null; untraced: string | null }>(
    `SELECT ${indexedHead} AS highest, (SELECT blocks FROM chain_totals) AS blocks,
            CASE WHEN $1 THEN (SELECT count(*) FROM blocks WHERE consensus AND traced_at IS NULL) END AS untraced`,
    [countUntraced],
  );
  const row = rows[0]!;
  return {
    highest: row.highest === null ? null : BigInt(row.highest),
    blocks: BigInt(row.blocks ?? 0),
    untraced: row.untraced === null ? null : BigInt(row.untraced),
  };
}

/** The slow, average and fast figures of the gas price oracle, in wei (fractions kept: they are means). */
export interface GasPricePercentiles {
  slow: number;
  average: number;
  fast: number;
}

/** What the gas price oracle computes its prices from. */
export interface GasPriceFiguresItem {
  /** Of the gas prices paid. */
  gasPrice: GasPricePercentiles;
  /** Of the max priority fees offered (EIP-1559 transactions); null when none of the blocks had one. */
  priorityFee: GasPricePercentiles | null;
  /** The base fee of the block after the newest, by EIP-1559's rule from the newest; null before London. */
  nextBaseFee: bigint | null;
}

/** The oracle's figures, and the newest consensus block they were computed at (null: none, nor any block). */
export interface GasPriceSampleItem {
  figures: GasPriceFiguresItem | null;
  headHash: Hex | null;
}

/**
 * Blockscout's gas price oracle (GasPriceOracle): in each of the newest `blocks` consensus blocks that
 * hold a successful transaction paying gas, the 35th, 60th and 90th percentiles (percentile_disc) of
 * the gas prices paid and of the max priority fees offered, each averaged over those blocks; null
 * when there is no such block. Every transaction row is of a consensus block (a reorg deletes the others).
 */
export async function readGasPriceFigures(db: Db, blocks: number): Promise<GasPriceSampleItem> {
  type Row = Record<'slow' | 'average' | 'fast' | 'slow_tip' | 'average_tip' | 'fast_tip', string | null> & {
    base_fee: string | null;
    gas_used: string | null;
    gas_limit: string | null;
    head_hash: Buffer | null;
  };
  const { rows } = await db.query<Row>(
    `WITH per_block AS (
       SELECT percentile_disc(ARRAY[0.35, 0.60, 0.90]) WITHIN GROUP (ORDER BY t.gas_price) AS price,
              percentile_disc(ARRAY[0.35, 0.60, 0.90]) WITHIN GROUP (ORDER BY t.max_priority_fee_per_gas) AS tip
       FROM transactions t
       WHERE t.gas_price > 0 AND t.status IS DISTINCT FROM 0
       GROUP BY t.block_number ORDER BY t.block_number DESC LIMIT $1
     ),
     head AS (SELECT hash, base_fee_per_gas, gas_used, gas_limit FROM blocks WHERE consensus ORDER BY number DESC LIMIT 1)
     SELECT avg(price[1]) AS slow, avg(price[2]) AS average, avg(price[3]) AS fast,
            avg(tip[1]) AS slow_tip, avg(tip[2]) AS average_tip, avg(tip[3]) AS fast_tip,
            (SELECT base_fee_per_gas FROM head) AS base_fee, (SELECT gas_used FROM head) AS gas_used,
            (SELECT gas_limit FROM head) AS gas_limit, (SELECT hash FROM head) AS head_hash
     FROM per_block`,
    [blocks],
  );
  const row = rows[0]!;
  const headHash = row.head_hash === null ? null : hexFromBytea(row.head_hash);
  if (row.slow === null || row.average === null || row.fast === null) return { figures: null, headHash };
  const tips = row.slow_tip === null || row.average_tip === null || row.fast_tip === null;
  const figures = {
    gasPrice: { slow: Number(row.slow), average: Number(row.average), fast: Number(row.fast) },
    priorityFee: tips ? null : { slow: Number(row.slow_tip), average: Number(row.average_tip), fast: Number(row.fast_tip) },
    nextBaseFee: row.base_fee === null ? null : nextBaseFee(BigInt(row.base_fee), BigInt(row.gas_used ?? 0), BigInt(row.gas_limit ?? 0)),
  };
  return { figures, headHash };
}

/** Whether the block is (still) on the consensus chain. */
export async function isConsensusBlock(db: Db, hash: Hex): Promise<boolean> {
  const { rows } = await db.query('SELECT 1 FROM blocks WHERE hash = $1 AND consensus', [byteaFromHex(hash)]);
  return rows.length > 0;
}

// EIP-1559's constants, Blockscout's defaults (EIP_1559_ELASTICITY_MULTIPLIER, EIP_1559_BASE_FEE_MAX_CHANGE_DENOMINATOR).
const elasticityMultiplier = 2n;
const baseFeeMaxChangeDenominator = 8n;

/** The base fee of a block's child, by EIP-1559's rule from the block's base fee, gas used and gas limit. */
export function nextBaseFee(baseFee: bigint, gasUsed: bigint, gasLimit: bigint): bigint {
  const target = gasLimit / elasticityMultiplier;
  if (target === 0n || gasUsed === target) return baseFee;
  if (gasUsed > target) {
    const rise = (baseFee * (gasUsed - target)) / target / baseFeeMaxChangeDenominator;
    return baseFee + (rise > 1n ? rise : 1n);
  }
  return baseFee - (baseFee * (target - gasUsed)) / target / baseFeeMaxChangeDenominator;
}

/** Gas used as a percentage of the gas limit over the newest `blocks` consensus blocks; null before the first block. */
export async function readNetworkUtilization(db: Db, blocks: number): Promise<number | null> {
  const { rows } = await db.query<{ percentage: string | null }>(
    `SELECT sum(gas_used) * 100 / nullif(sum(gas_limit), 0) AS percentage
     FROM (SELECT gas_used, gas_limit FROM blocks WHERE consensus ORDER BY number DESC LIMIT $1) b`,
    [blocks],
  );
  const percentage = rows[0]?.percentage ?? null;
  return percentage === null ? null : Number(percentage);
}

/** What the consensus blocks of a span of time hold. */
export interface ActivityItem {
  transactions: bigint;
  gasUsed: bigint;
  /** The fees their transactions paid, in wei. */
  fees: bigint;
}

/** The consensus blocks with a timestamp at or after `since`: one range of the blocks_consensus_timestamp index. */
export async function readActivitySince(db: Db, since: Date): Promise<ActivityItem> {
  const { rows } = await db.query<{ transactions: string; gas_used: string; fees: string }>(
    `SELECT coalesce(sum(transactions_count), 0) AS transactions, coalesce(sum(gas_used), 0) AS gas_used,
            coalesce(sum(transaction_fees), 0) AS fees
     FROM blocks WHERE consensus AND timestamp >= $1`,
    [since],
  );
  const row = rows[0]!;
  return { transactions: BigInt(row.transactions), gasUsed: BigInt(row.gas_used), fees: BigInt(row.fees) };
}

/** The transactions in the node's pool, as E2's pending list holds them. */
export async function countPendingTransactions(db: Db): Promise<bigint> {
  const { rows } = await db.query<{ count: string }>('SELECT count(*) AS count FROM pending_transactions');
  return BigInt(rows[0]!.count);
}
