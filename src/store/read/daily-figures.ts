import type { Db } from './sql.js';

/** What a chart line plots per period, from daily_figures (see daily-figures.ts for each figure's rule). */
export type LineFigure =
  | 'transactions'
  | 'transactionsGrowth'
  | 'successRate'
  | 'transactionFees'
  | 'averageTransactionFee'
  | 'blocks'
  | 'averageBlockTime'
  | 'averageBlockSize'
  | 'activeAccounts'
  | 'newAccounts'
  | 'accountsGrowth'
  | 'newContracts'
  | 'contractsGrowth'
  | 'newVerifiedContracts'
  | 'verifiedContractsGrowth'
  | 'gasUsedGrowth'
  | 'averageGasUsed'
  | 'averageGasLimit'
  | 'averageGasPrice'
  | 'networkUtilization'
  | 'tokenTransfers'
  | 'nativeTransfers';

export type Resolution = 'day' | 'week' | 'month' | 'year';

/** One period of a line: its first and last day (YYYY-MM-DD) and its value, a decimal string. */
export interface LinePoint {
  date: string;
  dateTo: string;
  value: string;
}

/** Wei as the coin (10^18 wei), exact. */
const inCoin = (wei: string) => `trim_scale(${wei}::numeric(1000, 18) / 1e18)`;
/** A mean in wei as `unit` (wei in one), to the wei. */
const meanIn = (wei: string, count: string, unit: string, decimals: number) =>
  `trim_scale(round(${wei}::numeric(1000, 36) / (nullif(${count}, 0) * ${unit}), ${decimals}))`;
/** A mean per block (gas, bytes), to the unit. */
const perBlock = (sum: string, blocks: string) => `round(${sum}::numeric / nullif(${blocks}, 0))`;
/** A share (0 to 1), to 10 decimals. */
const share = (part: string, whole: string) => `trim_scale(round(${part}::numeric / nullif(${whole}, 0), 10))`;

/** The SQL of a period's value over the days `d` of daily_figures (summed, or a ratio of sums). */
const periodValue: Record<Exclude<LineFigure, 'activeAccounts' | 'newVerifiedContracts' | 'verifiedContractsGrowth'>, string> = {
  transactions: 'sum(d.transactions)',
  transactionsGrowth: 'sum(d.transactions)',
  successRate: share('sum(d.successful_transactions)', 'sum(d.transactions)'),
  transactionFees: inCoin('sum(d.transaction_fees)'),
  averageTransactionFee: meanIn('sum(d.transaction_fees)', 'sum(d.transactions)', '1e18', 18),
  blocks: 'sum(d.blocks)',
  averageBlockTime: 'round(sum(d.block_seconds)::numeric / nullif(sum(d.block_intervals), 0), 3)',
  averageBlockSize: perBlock('sum(d.block_size)', 'sum(d.sized_blocks)'),
  newAccounts: 'sum(d.new_accounts)',
  accountsGrowth: 'sum(d.new_accounts)',
  newContracts: 'sum(d.new_contracts)',
  contractsGrowth: 'sum(d.new_contracts)',
  gasUsedGrowth: 'sum(d.gas_used)',
  averageGasUsed: perBlock('sum(d.gas_used)', 'sum(d.blocks)'),
  averageGasLimit: perBlock('sum(d.gas_limit)', 'sum(d.blocks)'),
  averageGasPrice: meanIn('sum(d.gas_prices)', 'sum(d.priced_transactions)', '1e9', 9),
  networkUtilization: share('sum(d.gas_used)', 'sum(d.gas_limit)'),
  tokenTransfers: 'sum(d.token_transfers)',
  nativeTransfers: 'sum(d.native_transfers)',
};

/** The growth lines: each period's sum added to every earlier day's, from the chain's first day. */
const growthColumn: Partial<Record<LineFigure, { table: string; column: string }>> = {
  transactionsGrowth: { table: 'daily_figures', column: 'transactions' },
  accountsGrowth: { table: 'daily_figures', column: 'new_accounts' },
  contractsGrowth: { table: 'daily_figures', column: 'new_contracts' },
  verifiedContractsGrowth: { table: 'daily_verified_contracts', column: 'contracts' },
  gasUsedGrowth: { table: 'daily_figures', column: 'gas_used' },
};

/** The SQL of a line's value per period (`period`, `value`) over the days `d` within the bounds. */
function perPeriodValues(figure: LineFigure, resolution: Resolution): string {
  const within = 'd.day BETWEEN (SELECT first FROM bounds) AND (SELECT last FROM bounds)';
  const period = 'date_trunc($1::text, d.day::timestamp)::date';
  switch (figure) {
    case 'activeAccounts':
      // Counted distinct over a longer period's days.
      return resolution === 'day'
        ? `SELECT d.day AS period, d.active_accounts AS value FROM daily_figures d WHERE ${within}`
        : `SELECT ${period} AS period, count(DISTINCT d.address) AS value FROM daily_senders d WHERE ${within} GROUP BY 1`;
    case 'newVerifiedContracts':
    case 'verifiedContractsGrowth':
      return `SELECT ${period} AS period, sum(d.contracts) AS value FROM daily_verified_contracts d WHERE ${within} GROUP BY 1`;
    default:
      return `SELECT ${period} AS period, ${periodValue[figure]} AS value FROM daily_figures d WHERE ${within} GROUP BY 1`;
  }
}

/**
 * A line's points, one per period (a day, or a week from Monday, a month, a year) from the first to the
 * last day of the chain that falls within `from`..`to` (both optional, inclusive); a period without a
 * block (or without what a mean divides by) plots 0, a growth line its running total. The periods are
 * generated from the days the chain has, never from the bounds.
 */
export async function readLine(
  db: Db,
  figure: LineFigure,
  resolution: Resolution,
  from: string | null,
  to: string | null,
): Promise<LinePoint[]> {
  const growth = growthColumn[figure];
  const value =
    growth === undefined
      ? 'coalesce(v.value, 0)'
      : `(SELECT coalesce(sum(${growth.column}), 0) FROM ${growth.table} WHERE day < (SELECT first FROM bounds))
         + sum(coalesce(v.value, 0)) OVER (ORDER BY p.period)`;
  const { rows } = await db.query<{ date: string; date_to: string; value: string }>(
    `WITH bounds AS (
       SELECT greatest(min(day), coalesce($2::date, min(day))) AS first, least(max(day), coalesce($3::date, max(day))) AS last FROM daily_figures
     ),
     periods AS (
       SELECT p::date AS period FROM bounds,
         generate_series(date_trunc($1::text, bounds.first::timestamp), date_trunc($1::text, bounds.last::timestamp), ('1 ' || $1::text)::interval) p
     ),
     v AS (${perPeriodValues(figure, resolution)})
     SELECT p.period::text AS date, (p.period + ('1 ' || $1::text)::interval - interval '1 day')::date::text AS date_to, (${value})::text AS value
     FROM periods p LEFT JOIN v USING (period)
     ORDER BY p.period`,
    [resolution, from, to],
  );
  return rows.map((r) => ({ date: r.date, dateTo: r.date_to, value: r.value }));
}

/** The figures of one UTC day (YYYY-MM-DD); zeros for a day without a block. */
export interface DayTotals {
  transactions: bigint;
  newContracts: bigint;
}

export async function readDayTotals(db: Db, day: string): Promise<DayTotals> {
  const { rows } = await db.query<{ transactions: string; new_contracts: string }>(
    `SELECT coalesce(max(transactions), 0) AS transactions, coalesce(max(new_contracts), 0) AS new_contracts FROM daily_figures WHERE day = $1`,
    [day],
  );
  const row = rows[0]!;
  return { transactions: BigInt(row.transactions), newContracts: BigInt(row.new_contracts) };
}

/** Transactions of the node's pool first seen at or after `since`. */
export async function countPendingTransactionsSince(db: Db, since: Date): Promise<bigint> {
  const { rows } = await db.query<{ count: string }>('SELECT count(*) AS count FROM pending_transactions WHERE inserted_at >= $1', [since]);
  return BigInt(rows[0]!.count);
}
