import type { IncomingHttpHeaders } from 'node:http';
import { readChainTiming } from '../../store/read/chain.js';
import { readCoinMarket } from '../../store/read/market.js';
import { readActivitySince, readChainTotals, readNetworkUtilization } from '../../store/read/stats.js';
import { gasPriceOracle } from '../gas-price-oracle.js';
import type { ApiRoute } from '../route.js';
import { headChanges } from '../shared-answers.js';
import { StatsSchema, statsView } from '../views/stats.js';

/** Blocks sampled for utilisation, as Blockscout's list of blocks. */
const utilizationBlocks = 50;

/** The start of the current day, UTC. */
const startOfUtcDay = (now: Date): Date => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));

/** Whether gas_prices are given as objects (Blockscout's newer shape) rather than numbers. */
const gasPriceObjects = (headers: IncomingHttpHeaders): boolean => headers['updated-gas-oracle'] === 'true';

/** The home page's figures: totals kept with the block writes, the rest from the newest blocks. */
export const statsRoute: ApiRoute = (app, { db }) => {
  const gasPrices = gasPriceOracle(db);
  app.get(
    '/api/v2/stats',
    {
      schema: { response: { 200: StatsSchema } },
      // The shape of gas_prices depends on this header: caches must keep the two apart.
      onRequest: async (_request, reply) => void reply.header('vary', 'updated-gas-oracle'),
      // Gas prices, utilisation and today's figures come from the newest blocks; the day's turn and a new coin price wait for the age limit.
      config: { sharedAnswer: { changedBy: [...headChanges, 'traced'], variant: (headers) => String(gasPriceObjects(headers)) } },
    },
    async (request) => {
      const [totals, timing, oracle, networkUtilization, today, coin] = await Promise.all([
        readChainTotals(db),
        readChainTiming(db),
        gasPrices(),
        readNetworkUtilization(db, utilizationBlocks),
        readActivitySince(db, startOfUtcDay(new Date())),
        readCoinMarket(db),
      ]);
      return statsView({
        totals,
        timing,
        gasPrices: oracle,
        gasPriceObjects: gasPriceObjects(request.headers),
        networkUtilization,
        today,
        coin,
      });
    },
  );
};
