import type { ApiRoute } from '../route.js';
import { readStatsCounters } from '../stats-counters.js';
import { CountersSchema } from '../views/stats-service.js';

/** The stats service's counters (blockscout-rs `stats`), so that the frontend's NEXT_PUBLIC_STATS_API_HOST can name Sextant. */
export const statsServiceCountersRoute: ApiRoute = (app, { db }) => {
  app.get('/api/v1/counters', { schema: { response: { 200: CountersSchema } } }, async () => {
    const c = await readStatsCounters(db, new Date());
    return {
      counters: [
        c.averageBlockTime,
        c.lastNewContracts,
        c.totalAddresses,
        c.totalBlocks,
        c.totalContracts,
        c.totalTxns,
        c.totalVerifiedContracts,
        c.newTxns24h,
        c.pendingTxns30m,
        c.txnsFee24h,
        c.averageTxnFee24h,
      ],
    };
  });
};
