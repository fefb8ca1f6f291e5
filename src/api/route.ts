import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyBaseLogger, FastifyInstance, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify';
import type { Address, IndexerStatus, IndexingProgress } from '../model.js';
import type { AnswerSlots } from './answer-slots.js';
import type { Db } from '../store/read/sql.js';
import type { CompilerList, VerificationRequest } from '../verification/index.js';

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

/** What the API asks of contract verification: the work runs apart from the request that submits it. */
export interface VerificationService {
  /** Queues a verification; resolves with its id once it is stored. */
  submit(address: Address, request: VerificationRequest): Promise<string>;
  compilers(): Promise<CompilerList>;
}

/** What the API asks of the proxy stage: a contract checked (again) for a proxy, apart from the request that asks it. */
export interface ProxyCheckService {
  /** Marks the contract for a check; resolves with the mark, which the check's progress is found by. */
  request(address: Address): Promise<bigint>;
}

/**
 * Native coin balances at the end of a past block, read from the node, in the order asked; null where
 * the node cannot tell (a node that keeps the state of recent blocks only, past them).
 */
export type PastCoinBalances = (addresses: readonly Address[], blockNumber: bigint) => Promise<(bigint | null)[]>;

export interface ApiContext {
  db: Db;
  /** Null where this process has no node: balances the index cannot tell stay unknown. */
  pastCoinBalances: PastCoinBalances | null;
  /** Null where this process verifies nothing: the verification endpoints say so. */
  verification: VerificationService | null;
  /** Null where this process cannot ask for a proxy check: verifyproxycontract says so. */
  proxyChecks: ProxyCheckService | null;
  indexerStatus: IndexerStatus | null;
  indexing: IndexingSettings;
  /** The catch-up's and the trace stage's pace, measured beside the indexer; null without one. */
  progress: IndexingProgress | null;
  /** E4's successor, with {address_hash} and {id} filled in per request; null: no Link header. */
  instanceTransfersSuccessorUrl: string | null;
  /** Blocks this far below the indexed head are final (INDEXER_MAX_REORG_DEPTH); null: none is treated as final. */
  finalityDepth: number | null;
  /** The line the Etherscan-style lists are computed in, a few at a time (answer-slots.ts). */
  listSlots: AnswerSlots;
}

/** One endpoint: registers its schema and handler. */
export type ApiRoute = (app: ApiApp, context: ApiContext) => void;
