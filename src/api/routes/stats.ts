import { readChainTiming } from '../../store/read/chain.js';
import { readActivitySince, readChainTotals, readGasPrices, readNetworkUtilization } from '../../store/read/stats.js';
import type { ApiRoute } from '../route.js';
import { StatsSchema, statsView } from '../views/stats.js';

/** Blocks sampled, as Blockscout's defaults: its gas price oracle's, and its list of blocks for utilisation. */
const gasPriceBlocks = 200;
const utilizationBlocks = 50;

/** The start of the current day, UTC. */
const startOfUtcDay = (now: Date): Date => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));

/** The home page's figures: totals kept with the block writes, the rest from the newest blocks. */
export const statsRoute: ApiRoute = (app, { db }) => {
  app.get('/api/v2/stats', { schema: { response: { 200: StatsSchema } } }, async () => {
    const [totals, timing, gasPrices, networkUtilization, today] = await Promise.all([
      readChainTotals(db),
      readChainTiming(db),
      readGasPrices(db, gasPriceBlocks),
      readNetworkUtilization(db, utilizationBlocks),
      readActivitySince(db, startOfUtcDay(new Date())),
    ]);
    return statsView({ totals, timing, gasPrices, networkUtilization, today });
  });
};
