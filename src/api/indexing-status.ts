import { readIndexingProgress } from '../store/read/stats.js';
import type { ApiContext } from './route.js';
import { type IndexingStatus, indexingStatusView } from './views/indexing-status.js';

/**
 * How much of the chain is indexed, blocks and internal transactions, from the index itself and,
 * beside `sextant start`'s indexer, the node head its catch-up is heading for: what
 * /main-page/indexing-status answers and the websocket's index_status pushes say.
 */
export async function readIndexingStatus({
  db,
  indexerStatus,
  indexing,
}: Pick<ApiContext, 'db' | 'indexerStatus' | 'indexing'>): Promise<IndexingStatus> {
  const progress = await readIndexingProgress(db, indexing.tracesIndexed);
  const catchingUp = indexerStatus !== null && (indexerStatus.phase === 'starting' || indexerStatus.phase === 'backfilling');
  return indexingStatusView(progress, indexing, catchingUp ? indexerStatus.head : null);
}
