import { Type } from '@sinclair/typebox';
import { readLine } from '../../store/read/daily-figures.js';
import { readCoinMarket, readCoinMarketChart } from '../../store/read/market.js';
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

/** The days of Blockscout's market chart (its MarketHistoryCache's recent days). */
const marketDays = 30;

/**
 * Blockscout's market chart: the coin's daily price and market cap from the price source, newest first
 * (readCoinMarketChart), and the coins in circulation as available_supply (0 when unknown, as
 * Blockscout says). Without a price source, no points.
 */
export const marketChartRoute: ApiRoute = (app, { db }) => {
  app.get('/api/v2/stats/charts/market', { schema: { response: { 200: MarketChart } } }, async () => {
    const [coin, days] = await Promise.all([readCoinMarket(db), readCoinMarketChart(db, marketDays)]);
    return {
      available_supply: coin?.circulatingSupply ?? 0,
      chart_data: days.map((d) => ({ date: d.day, closing_price: d.closingPrice, market_cap: d.marketCap })),
    };
  });
};
