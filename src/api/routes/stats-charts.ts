import { Type } from '@sinclair/typebox';
import { readLine } from '../../store/read/daily-figures.js';
import type { ApiRoute } from '../route.js';
import { utcDay } from '../views/stats-service.js';

/** Days of Blockscout's transaction chart (its TransactionHistoryChartController history_size) before yesterday. */
const historyDays = 30;
const dayMs = 24 * 60 * 60 * 1000;

const TransactionsChart = Type.Object({
  chart_data: Type.Array(Type.Object({ date: Type.String(), transactions_count: Type.Integer() })),
});

/**
 * Blockscout's daily transactions chart: the full days from 30 days before yesterday to yesterday (today
 * is left out, as Blockscout's daily job leaves it), newest first, from the days the chain has.
 */
export const transactionsChartRoute: ApiRoute = (app, { db }) => {
  app.get('/api/v2/stats/charts/transactions', { schema: { response: { 200: TransactionsChart } } }, async () => {
    const now = Date.now();
    const latest = utcDay(new Date(now - dayMs));
    const earliest = utcDay(new Date(now - (historyDays + 1) * dayMs));
    const points = await readLine(db, 'transactions', 'day', earliest, latest);
    return { chart_data: points.reverse().map((p) => ({ date: p.date, transactions_count: Number(p.value) })) };
  });
};

const MarketChart = Type.Object({
  available_supply: Type.Union([Type.String(), Type.Integer()]),
  chart_data: Type.Array(
    Type.Object({
      date: Type.String(),
      closing_price: Type.Union([Type.String(), Type.Null()]),
      market_cap: Type.Union([Type.String(), Type.Null()]),
    }),
  ),
});

/**
 * Blockscout's market chart as Blockscout answers without market history: the price source's current
 * figures are kept (coin_market), not their daily history, so no points and a supply of 0.
 */
export const marketChartRoute: ApiRoute = (app) => {
  app.get('/api/v2/stats/charts/market', { schema: { response: { 200: MarketChart } } }, () => ({ available_supply: 0, chart_data: [] }));
};
