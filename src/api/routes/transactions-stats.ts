import { Type } from '@sinclair/typebox';
import { countPendingTransactions, readActivitySince } from '../../store/read/stats.js';
import type { ApiRoute } from '../route.js';
import { DecimalString } from '../schemas.js';

const Response = Type.Object({
  transactions_count_24h: DecimalString,
  pending_transactions_count: DecimalString,
  transaction_fees_sum_24h: DecimalString,
  transaction_fees_avg_24h: DecimalString,
});

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The transactions page's figures: the transactions of the consensus blocks of the last 24 hours and
 * their fees (sum and mean, in wei, the mean rounded down), and the transactions of the node's pool.
 */
export const transactionsStatsRoute: ApiRoute = (app, { db }) => {
  app.get('/api/v2/transactions/stats', { schema: { response: { 200: Response } } }, async () => {
    const [day, pending] = await Promise.all([readActivitySince(db, new Date(Date.now() - DAY_MS)), countPendingTransactions(db)]);
    return {
      transactions_count_24h: day.transactions.toString(),
      pending_transactions_count: pending.toString(),
      transaction_fees_sum_24h: day.fees.toString(),
      transaction_fees_avg_24h: (day.transactions === 0n ? 0n : day.fees / day.transactions).toString(),
    };
  });
};
