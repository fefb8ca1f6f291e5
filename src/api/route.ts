import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyBaseLogger, FastifyInstance, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify';
import type { IndexerStatus, IndexingProgress } from '../model.js';
import type { Db } from '../store/read/sql.js';

/** The Fastify instance routes register on: TypeBox schemas type each handler's input and output. */
export type ApiApp = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/** What the indexer is configured to index, which the indexing status measures its progress against. */
export interface IndexingSettings {
  firstBlock: bigint;
  /** False when internal transactions are not fetched (INDEXER_DISABLE_INTERNAL_TRANSACTIONS_FETCHER). */
  tracesIndexed: boolean;
}

export interface ApiContext {
  db: Db;
  indexerStatus: IndexerStatus | null;
  indexing: IndexingSettings;
  /** The catch-up's and the trace stage's pace, measured beside the indexer; null without one. */
  progress: IndexingProgress | null;
  /** E4's successor, with {address_hash} and {id} filled in per request; null: no Link header. */
  instanceTransfersSuccessorUrl: string | null;
  /** Blocks this far below the indexed head are final (INDEXER_MAX_REORG_DEPTH); null: none is treated as final. */
  finalityDepth: number | null;
}

/** One endpoint: registers its schema and handler. */
export type ApiRoute = (app: ApiApp, context: ApiContext) => void;
