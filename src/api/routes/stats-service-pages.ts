import { Type } from '@sinclair/typebox';
import { readLine } from '../../store/read/daily-figures.js';
import type { ApiRoute } from '../route.js';
import { readStatsCounters } from '../stats-counters.js';
import { CountersSchema, LineChartSchema, lineChartView, lineDefinitions, utcDay } from '../views/stats-service.js';

const CounterItem = CountersSchema.properties.counters.items;

/** The stats service's pages: the counters (and, for the home page, the line) each page of the frontend shows. */
export const statsServicePagesRoute: ApiRoute = (app, { db }) => {
  const MainPage = Type.Object({
    average_block_time: Type.Optional(CounterItem),
    total_addresses: Type.Optional(CounterItem),
    total_blocks: Type.Optional(CounterItem),
    total_transactions: Type.Optional(CounterItem),
    yesterday_transactions: Type.Optional(CounterItem),
    daily_new_transactions: Type.Optional(LineChartSchema),
  });
  app.get('/api/v1/pages/main', { schema: { response: { 200: MainPage } } }, async () => {
    const now = new Date();
    const newTxns = lineDefinitions.get('newTxns')!;
    const [c, points] = await Promise.all([
      readStatsCounters(db, now),
      readLine(db, newTxns.figure, 'day', utcDay(new Date(now.getTime() - 30 * 24 * 60 * 60 * 1000)), null),
    ]);
    return {
      average_block_time: c.averageBlockTime,
      total_addresses: c.totalAddresses,
      total_blocks: c.totalBlocks,
      total_transactions: c.totalTxns,
      yesterday_transactions: c.yesterdayTxns,
      daily_new_transactions: lineChartView(newTxns, points, utcDay(now)),
    };
  });

  const TransactionsPage = Type.Object({
    pending_transactions_30m: Type.Optional(CounterItem),
    transactions_fee_24h: Type.Optional(CounterItem),
    average_transactions_fee_24h: Type.Optional(CounterItem),
    transactions_24h: Type.Optional(CounterItem),
  });
  app.get('/api/v1/pages/transactions', { schema: { response: { 200: TransactionsPage } } }, async () => {
    const c = await readStatsCounters(db, new Date());
    return {
      pending_transactions_30m: c.pendingTxns30m,
      transactions_fee_24h: c.txnsFee24h,
      average_transactions_fee_24h: c.averageTxnFee24h,
      transactions_24h: c.newTxns24h,
    };
  });

  const ContractsPage = Type.Object({
    total_contracts: Type.Optional(CounterItem),
    new_contracts_24h: Type.Optional(CounterItem),
    total_verified_contracts: Type.Optional(CounterItem),
    new_verified_contracts_24h: Type.Optional(CounterItem),
  });
  app.get('/api/v1/pages/contracts', { schema: { response: { 200: ContractsPage } } }, async () => {
    const c = await readStatsCounters(db, new Date());
    return {
      total_contracts: c.totalContracts,
      new_contracts_24h: c.newContracts24h,
      total_verified_contracts: c.totalVerifiedContracts,
      new_verified_contracts_24h: c.newVerifiedContracts24h,
    };
  });
};
