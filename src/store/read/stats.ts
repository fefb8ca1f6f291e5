import { indexedHead } from '../index-progress.js';
import { type Db, isoTimestamp } from './sql.js';

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

/** Gas prices in wei (fractions kept: they are means), and the time of the newest block they come from. */
export interface GasPricesItem {
  slow: number;
  average: number;
  fast: number;
  /** ISO 8601. */
  updatedAt: string;
}

/**
 * Gas prices as Blockscout's oracle takes them: in each of the newest `blocks` consensus blocks, the
 * 35th, 60th and 90th percentiles of the effective gas prices its successful transactions paid, each
 * averaged over the blocks; null when those blocks hold no such transaction.
 */
export async function readGasPrices(db: Db, blocks: number): Promise<GasPricesItem | null> {
  const { rows } = await db.query<{ slow: string | null; average: string | null; fast: string | null; updated_at: string | null }>(
    `WITH head AS (SELECT number, timestamp FROM blocks WHERE consensus ORDER BY number DESC LIMIT 1),
          per_block AS (
            SELECT percentile_disc(ARRAY[0.35, 0.60, 0.90]) WITHIN GROUP (ORDER BY t.gas_price) AS p
            FROM transactions t, head
            WHERE t.block_number > head.number - $1 AND t.gas_price > 0 AND t.status IS DISTINCT FROM 0
            GROUP BY t.block_number
          )
     SELECT avg(p[1]) AS slow, avg(p[2]) AS average, avg(p[3]) AS fast,
            (SELECT ${isoTimestamp('timestamp')} FROM head) AS updated_at
     FROM per_block`,
    [blocks],
  );
  const row = rows[0];
  if (row?.slow == null || row.average === null || row.fast === null || row.updated_at === null) return null;
  return { slow: Number(row.slow), average: Number(row.average), fast: Number(row.fast), updatedAt: row.updated_at };
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
