import { Type, type Static } from '@sinclair/typebox';
import type { LineFigure, LinePoint, Resolution } from '../../store/read/daily-figures.js';

// The answers of Blockscout's stats service (blockscout-rs `stats`, its `stats.proto`), as its frontend
// reads them (`@blockscout/stats-types`): every number is a string.

export const CounterSchema = Type.Object({
  id: Type.String(),
  value: Type.String(),
  title: Type.String(),
  units: Type.Optional(Type.String()),
  description: Type.String(),
});
export type Counter = Static<typeof CounterSchema>;

export const CountersSchema = Type.Object({ counters: Type.Array(CounterSchema) });

export const resolutions = ['DAY', 'WEEK', 'MONTH', 'YEAR'] as const;
export type ResolutionName = (typeof resolutions)[number];

export const LineChartInfoSchema = Type.Object({
  id: Type.String(),
  title: Type.String(),
  description: Type.String(),
  units: Type.Optional(Type.String()),
  resolutions: Type.Array(Type.String()),
});

export const LineChartsSchema = Type.Object({
  sections: Type.Array(Type.Object({ id: Type.String(), title: Type.String(), charts: Type.Array(LineChartInfoSchema) })),
});

const DateString = Type.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' });

export const LineChartSchema = Type.Object({
  chart: Type.Array(Type.Object({ date: DateString, date_to: DateString, value: Type.String(), is_approximate: Type.Boolean() })),
  info: LineChartInfoSchema,
});
export type LineChart = Static<typeof LineChartSchema>;

interface LineDefinition {
  id: string;
  figure: LineFigure;
  title: string;
  description: string;
  units?: string;
}

/**
 * The lines Sextant serves, by section, under the stats service's ids, in its layout's order (its
 * `layout.json`), with its titles and units (the coin named as its default configuration does). Sextant
 * adds averageBlockTime and newTokenTransfers.
 */
export const lineSections: readonly { id: string; title: string; charts: readonly LineDefinition[] }[] = [
  {
    id: 'accounts',
    title: 'Accounts',
    charts: [
      { id: 'accountsGrowth', figure: 'accountsGrowth', title: 'Number of accounts', description: 'Cumulative account growth over time' },
      { id: 'activeAccounts', figure: 'activeAccounts', title: 'Active accounts', description: 'Active accounts number per period' },
      { id: 'newAccounts', figure: 'newAccounts', title: 'New accounts', description: 'Number of newly added accounts' },
    ],
  },
  {
    id: 'transactions',
    title: 'Transactions',
    charts: [
      {
        id: 'averageTxnFee',
        figure: 'averageTransactionFee',
        title: 'Average transaction fee',
        description: 'Average amount of ETH spent on gas fees per transaction',
        units: 'ETH',
      },
      { id: 'newTxns', figure: 'transactions', title: 'New transactions', description: 'New transactions number' },
      { id: 'txnsFee', figure: 'transactionFees', title: 'Transaction fees', description: 'Sum of ETH spent on gas fees', units: 'ETH' },
      { id: 'txnsGrowth', figure: 'transactionsGrowth', title: 'Transactions growth', description: 'Cumulative transactions number' },
      {
        id: 'txnsSuccessRate',
        figure: 'successRate',
        title: 'Transaction success rate',
        description: 'Success rate for all included transactions',
      },
    ],
  },
  {
    id: 'blocks',
    title: 'Blocks',
    charts: [
      {
        id: 'averageBlockSize',
        figure: 'averageBlockSize',
        title: 'Average block size',
        description: 'Space (in bytes) taken up by all block fields',
        units: 'Bytes',
      },
      { id: 'newBlocks', figure: 'blocks', title: 'New blocks', description: 'New blocks number' },
      {
        id: 'averageBlockTime',
        figure: 'averageBlockTime',
        title: 'Average block time',
        description: 'Average time taken in seconds for a block to be included in the blockchain',
        units: 's',
      },
    ],
  },
  {
    id: 'tokens',
    title: 'Tokens',
    charts: [
      {
        id: 'newNativeCoinTransfers',
        figure: 'nativeTransfers',
        title: 'Number of ETH transfers',
        description: 'Completed token transfers',
      },
      {
        id: 'newTokenTransfers',
        figure: 'tokenTransfers',
        title: 'New token transfers',
        description: 'New token transfers number for the period',
      },
    ],
  },
  {
    id: 'gas',
    title: 'Gas',
    charts: [
      { id: 'averageGasLimit', figure: 'averageGasLimit', title: 'Average gas limit', description: 'Average block gas limit' },
      {
        id: 'averageGasPrice',
        figure: 'averageGasPrice',
        title: 'Average gas price',
        description: 'Average price (Gwei) per unit of gas',
        units: 'Gwei',
      },
      { id: 'gasUsedGrowth', figure: 'gasUsedGrowth', title: 'Gas used growth', description: 'Cumulative gas used for the period' },
      {
        id: 'networkUtilization',
        figure: 'networkUtilization',
        title: 'Network utilization',
        description: 'Percentage of gas used compared to the gas limit',
      },
      { id: 'averageGasUsed', figure: 'averageGasUsed', title: 'Average gas used', description: 'Average amount of gas used per block' },
    ],
  },
  {
    id: 'contracts',
    title: 'Contracts',
    charts: [
      {
        id: 'contractsGrowth',
        figure: 'contractsGrowth',
        title: 'Contracts growth',
        description: 'Cumulative number of contracts for the period',
      },
      { id: 'newContracts', figure: 'newContracts', title: 'New contracts', description: 'New contracts number for the period' },
      {
        id: 'newVerifiedContracts',
        figure: 'newVerifiedContracts',
        title: 'New verified contracts',
        description: 'Number of newly verified contracts',
      },
      {
        id: 'verifiedContractsGrowth',
        figure: 'verifiedContractsGrowth',
        title: 'Number of verified contracts',
        description: 'Cumulative verified contract growth over time',
      },
    ],
  },
];

export const lineDefinitions: ReadonlyMap<string, LineDefinition> = new Map(
  lineSections.flatMap((section) => section.charts.map((chart) => [chart.id, chart] as const)),
);

export function lineInfo(line: LineDefinition): Static<typeof LineChartInfoSchema> {
  return {
    id: line.id,
    title: line.title,
    description: line.description,
    ...(line.units === undefined ? {} : { units: line.units }),
    resolutions: [...resolutions],
  };
}

export const resolutionOf = (name: ResolutionName): Resolution => name.toLowerCase() as Resolution;

/** A line's points; the period that holds `today` (YYYY-MM-DD, UTC) is still counting, so approximate. */
export function lineChartView(line: LineDefinition, points: readonly LinePoint[], today: string): LineChart {
  return {
    chart: points.map((p) => ({ date: p.date, date_to: p.dateTo, value: p.value, is_approximate: p.date <= today && today <= p.dateTo })),
    info: lineInfo(line),
  };
}

export function counter(id: string, value: string, title: string, description: string, units?: string): Counter {
  return { id, value, title, description, ...(units === undefined ? {} : { units }) };
}

/** The UTC day of a moment, YYYY-MM-DD. */
export const utcDay = (moment: Date): string => moment.toISOString().slice(0, 10);
