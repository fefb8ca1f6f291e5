import { Type } from '@sinclair/typebox';
import type { IndexerStatus, IndexingProgress, StageProgress } from '../../model.js';
import { type BulkLoadState, readBulkLoad } from '../../store/read/bulk-load.js';
import { readIndexedHead } from '../../store/read/chain.js';
import { type OffchainSourceState, readOffchainSources } from '../../store/read/market.js';
import { type ReplicaState, readReplicaState } from '../../store/read/replication.js';
import type { ApiRoute } from '../route.js';
import { Nullable } from '../schemas.js';

const IndexerSchema = Type.Object({
  phase: Type.String(),
  node_head: Nullable(Type.Integer()),
  node_available: Type.Boolean(),
  node_error: Nullable(Type.String()),
  database_available: Type.Boolean(),
  database_error: Nullable(Type.String()),
  last_error: Nullable(Type.String()),
  blocks_indexed: Type.Integer(),
  batch_size: Type.Integer(),
  new_heads: Type.Union([Type.Literal('websocket'), Type.Literal('polling')]),
});

const StageProgressSchema = Type.Object({
  done: Type.Integer(),
  total: Type.Integer(),
  blocks_per_second: Type.Number(),
  transactions_per_second: Nullable(Type.Number()),
  seconds_left: Nullable(Type.Number()),
});

const ReplicaSchema = Type.Object({
  lag_seconds: Nullable(Type.Number()),
  received_lsn: Nullable(Type.String()),
  replayed_lsn: Nullable(Type.String()),
  replay_backlog_bytes: Nullable(Type.Integer()),
});

const BulkLoadSchema = Type.Object({
  phase: Type.Union([Type.Literal('loading'), Type.Literal('ledger'), Type.Literal('indexes'), Type.Literal('statistics')]),
  first_block: Type.Integer(),
  last_block: Type.Integer(),
  steps_done: Type.Integer(),
  steps_total: Nullable(Type.Integer()),
});

/** An outside source an indexer fetches from (the price source, the token list), as its last fetches left it. */
const OffchainSourceSchema = Type.Object({
  name: Type.String(),
  available: Type.Boolean(),
  last_success_at: Nullable(Type.String()),
  last_failure_at: Nullable(Type.String()),
  last_error: Nullable(Type.String()),
  consecutive_failures: Type.Integer(),
});

const Response = Type.Object({
  status: Type.Literal('ok'),
  indexed_head: Nullable(Type.Integer()),
  indexer: Nullable(IndexerSchema),
  progress: Nullable(Type.Object({ catch_up: Nullable(StageProgressSchema), traces: Nullable(StageProgressSchema) })),
  replica: Nullable(ReplicaSchema),
  bulk_load: Nullable(BulkLoadSchema),
  offchain_sources: Type.Array(OffchainSourceSchema),
});

const stageView = (stage: StageProgress | null) =>
  stage === null
    ? null
    : {
        done: stage.done,
        total: stage.total,
        blocks_per_second: stage.blocksPerSecond,
        transactions_per_second: stage.transactionsPerSecond,
        seconds_left: stage.secondsLeft,
      };

const progressView = (progress: IndexingProgress) => ({ catch_up: stageView(progress.catchUp), traces: stageView(progress.traces) });

const indexerView = (status: IndexerStatus) => ({
  phase: status.phase,
  node_head: status.head === null ? null : Number(status.head),
  node_available: status.node.available,
  node_error: status.node.error,
  database_available: status.database.available,
  database_error: status.database.error,
  last_error: status.lastError,
  blocks_indexed: status.blocksIndexed,
  batch_size: status.batchSize,
  new_heads: status.newHeads,
});

const replicaView = (state: ReplicaState) => ({
  lag_seconds: state.lagSeconds,
  received_lsn: state.receivedLsn,
  replayed_lsn: state.replayedLsn,
  replay_backlog_bytes: state.replayBacklogBytes,
});

const bulkLoadView = (state: BulkLoadState) => ({
  phase: state.phase,
  first_block: Number(state.firstBlock),
  last_block: Number(state.lastBlock),
  steps_done: state.stepsDone,
  steps_total: state.stepsTotal,
});

const offchainSourceView = (state: OffchainSourceState) => ({
  name: state.name,
  available: state.consecutiveFailures === 0,
  last_success_at: state.lastSuccessAt?.toISOString() ?? null,
  last_failure_at: state.lastFailureAt?.toISOString() ?? null,
  last_error: state.lastError,
  consecutive_failures: state.consecutiveFailures,
});

/**
 * 200 with the highest indexed block and, when an indexer runs beside the API, its state: whether
 * the node and the database answer it (with the failure while one does not), its last failure,
 * the pace of the catch-up and of the trace stage, as the progress bar or log line shows it, and,
 * when the API reads a streaming replica, how far that replica is behind, and the phase of a bulk load
 * of history while one runs, and the state of each outside source an indexer fetches from (the price
 * source, the token list): a failing one keeps serving its last values, and says so here.
 * 503 when the API cannot reach the database.
 */
export const healthRoute: ApiRoute = (app, { db, indexerStatus, progress }) => {
  app.get('/health', { schema: { response: { 200: Response } } }, async (_request, reply) => {
    const [head, replica, bulkLoad, sources] = await Promise.all([
      readIndexedHead(db),
      readReplicaState(db),
      readBulkLoad(db),
      readOffchainSources(db),
    ]);
    void reply.header('cache-control', 'no-store');
    return {
      status: 'ok' as const,
      indexed_head: head,
      indexer: indexerStatus === null ? null : indexerView(indexerStatus),
      progress: progress === null ? null : progressView(progress),
      replica: replica === null ? null : replicaView(replica),
      bulk_load: bulkLoad === null ? null : bulkLoadView(bulkLoad),
      offchain_sources: sources.map(offchainSourceView),
    };
  });
};
