import type { FastifyInstance } from 'fastify';
import type { BulkLoadState } from '../store/read/bulk-load.js';
import { sendUnavailable } from './errors.js';

/**
 * While history is loaded in bulk, the tables have no secondary indexes and no ledger (balances, counters,
 * holders): a list would be a sequential scan of whole tables, a balance or counter would read as empty.
 * Every data endpoint but these answers 503 with Retry-After until the switch to the normal mode is done;
 * these read only what a bulk load keeps up to date; so do the stats service's paths under /api/v1/. What
 * is outside them (health, metrics, the API's documents, the websocket) reads nothing a bulk load leaves out.
 */
const servedDuringBulkLoad: ReadonlySet<string> = new Set(['/api/v2/main-page/indexing-status', '/api/v2/config/backend-version']);

/** A bulk load's phases last minutes to hours: a client is told to come back in a minute. */
const RETRY_AFTER_SECONDS = 60;

function describe(state: BulkLoadState): string {
  const range = `blocks ${state.firstBlock} to ${state.lastBlock}`;
  return state.phase === 'loading'
    ? `History (${range}) is being loaded in bulk; this endpoint answers once the load and its switch to the indexed mode are done.`
    : `History (${range}) is loaded; the switch to the indexed mode is building ${state.phase === 'ledger' ? 'balances and counters' : state.phase === 'indexes' ? 'indexes' : 'statistics'} (step ${state.stepsDone + 1} of ${state.stepsTotal}); this endpoint answers once it is done.`;
}

/**
 * Refuses the data endpoints while `bulkLoad` says a bulk load is under way. It is the state as last
 * read apart from the requests (see src/app/bulk-load-watch.ts): a request waits for no query of its own.
 */
export function registerBulkLoadGuard(app: FastifyInstance, bulkLoad: () => BulkLoadState | null): void {
  app.addHook('onRequest', async (request, reply) => {
    const route = request.routeOptions.url;
    // /api/v1 itself is the Etherscan-style API; its sub-paths are the stats service's, read from the ledger's daily figures.
    const guarded = route !== undefined && (route.startsWith('/api/v2/') || route.startsWith('/api/v1/'));
    if (!guarded || servedDuringBulkLoad.has(route)) return;
    const state = bulkLoad();
    if (state !== null) return sendUnavailable(reply, describe(state), RETRY_AFTER_SECONDS);
  });
}
