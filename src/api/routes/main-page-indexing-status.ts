import { readIndexingProgress } from '../../store/read/stats.js';
import type { ApiRoute } from '../route.js';
import { IndexingStatusSchema, indexingStatusView } from '../views/indexing-status.js';

/**
 * How much of the chain is indexed, blocks and internal transactions, from the index itself and,
 * beside `sextant start`'s indexer, the node head its catch-up is heading for.
 */
export const mainPageIndexingStatusRoute: ApiRoute = (app, { db, indexerStatus, indexing }) => {
  app.get('/api/v2/main-page/indexing-status', { schema: { response: { 200: IndexingStatusSchema } } }, async () => {
    const progress = await readIndexingProgress(db, indexing.tracesIndexed);
    const catchingUp = indexerStatus !== null && (indexerStatus.phase === 'starting' || indexerStatus.phase === 'backfilling');
    return indexingStatusView(progress, indexing, catchingUp ? indexerStatus.head : null);
  });
};
