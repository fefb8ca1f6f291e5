import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import multipart from '@fastify/multipart';
import formbody from '@fastify/formbody';
import websocket from '@fastify/websocket';
import underPressure from '@fastify/under-pressure';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type pino from 'pino';
import type { IndexerStatus, IndexingProgress } from '../model.js';
import { type ChangeListenerOptions, listenForChanges } from '../store/notifications.js';
import type { Db } from '../store/read/sql.js';
import { clientAwareDb, trackRequests } from './client-gone.js';
import { registerContractFacts } from './contract-facts.js';
import { eventLoopStillLags } from './load-shedding.js';
import { registerCaching } from './caching.js';
import { registerCompression } from './compression.js';
import { registerCors } from './cors.js';
import { SharedAnswers, registerSharedAnswers } from './shared-answers.js';
import { answerSharedEarly } from './early-answers.js';
import { frameworkErrors, registerErrorHandling, sendUnavailable } from './errors.js';
import { clientErrorHandler, registerHttpHygiene } from './http-hygiene.js';
import { type RateLimitOptions, registerRateLimit } from './rate-limit.js';
import { type MetricsOptions, registerMetrics } from './metrics.js';
import { RequestLog, type RequestLogLevel } from './request-log.js';
import { registerOpenApi } from './openapi.js';
import { registerRequestSlots } from './request-slots.js';
import { slotsLine } from './answer-slots.js';
import { registerStrictInput } from './strict-input.js';
import type { ApiApp, ApiContext, ApiRoute, IndexingSettings, PastCoinBalances, ProxyCheckService, VerificationService } from './route.js';
import { addressCountersRoute, addressRoute, addressTabsCountersRoute } from './routes/address.js';
import { addressTransactionsRoute } from './routes/address-transactions.js';
import { addressBlocksValidatedRoute } from './routes/address-blocks-validated.js';
import { addressNftCollectionsRoute } from './routes/address-nft-collections.js';
import { addressTokenTransfersRoute } from './routes/address-token-transfers.js';
import { addressTokensRoute } from './routes/address-tokens.js';
import { addressInternalTransactionsRoute } from './routes/address-internal-transactions.js';
import { blockTransactionsRoute } from './routes/block-transactions.js';
import { blockWithdrawalsRoute } from './routes/block-withdrawals.js';
import { blockRoute } from './routes/block.js';
import { blocksRoute } from './routes/blocks.js';
import { healthRoute } from './routes/health.js';
import { tokenInstanceTransfersRoute } from './routes/token-instance-transfers.js';
import { tokenRoute } from './routes/token.js';
import { tokenCountersRoute } from './routes/token-counters.js';
import { tokenTransfersRoute } from './routes/token-transfers.js';
import { tokenHoldersRoute } from './routes/token-holders.js';
import { tokenInstancesRoute } from './routes/token-instances.js';
import { tokenInstanceRoute } from './routes/token-instance.js';
import { tokenInstanceHoldersRoute } from './routes/token-instance-holders.js';
import { tokenInstanceTransfersCountRoute } from './routes/token-instance-transfers-count.js';
import { transactionInternalTransactionsRoute } from './routes/transaction-internal-transactions.js';
import { transactionRawTraceRoute } from './routes/transaction-raw-trace.js';
import { transactionTokenTransfersRoute } from './routes/transaction-token-transfers.js';
import { transactionRoute } from './routes/transaction.js';
import { transactionsRoute } from './routes/transactions.js';
import { transactionLogsRoute } from './routes/transaction-logs.js';
import { transactionStateChangesRoute } from './routes/transaction-state-changes.js';
import { addressLogsRoute } from './routes/address-logs.js';
import { addressCoinBalanceHistoryRoute } from './routes/address-coin-balance-history.js';
import { addressCoinBalanceHistoryByDayRoute } from './routes/address-coin-balance-history-by-day.js';
import { type IndexingContext, liveFeed } from './live/feed.js';
import { LiveHub } from './live/hub.js';
import { registerLiveSocket } from './live/socket-route.js';
import { mainPageBlocksRoute } from './routes/main-page-blocks.js';
import { mainPageTransactionsRoute } from './routes/main-page-transactions.js';
import { mainPageIndexingStatusRoute } from './routes/main-page-indexing-status.js';
import { statsRoute } from './routes/stats.js';
import { transactionsStatsRoute } from './routes/transactions-stats.js';
import { backendVersionRoute } from './routes/backend-version.js';
import type { BulkLoadState } from '../store/read/bulk-load.js';
import { registerBulkLoadGuard } from './bulk-load-guard.js';
import { searchRoute } from './routes/search.js';
import { searchQuickRoute } from './routes/search-quick.js';
import { searchCheckRedirectRoute } from './routes/search-check-redirect.js';
import { smartContractRoute } from './routes/smart-contract.js';
import { smartContractsCountersRoute, verifiedContractsRoute } from './routes/smart-contracts.js';
import { formLimits, verificationConfigRoute, verificationViaRoute } from './routes/verification.js';
import { tokenListRoute } from './routes/token-list.js';
import { topAddressesRoute } from './routes/top-addresses.js';
import { allTokenTransfersRoute } from './routes/all-token-transfers.js';
import { allInternalTransactionsRoute } from './routes/all-internal-transactions.js';
import { allWithdrawalsRoute } from './routes/all-withdrawals.js';
import { etherscanRoute } from './etherscan/router.js';
import { marketChartRoute, transactionsChartRoute } from './routes/stats-charts.js';
import { statsServiceCountersRoute } from './routes/stats-service-counters.js';
import { statsServiceLinesRoute } from './routes/stats-service-lines.js';
import { statsServicePagesRoute } from './routes/stats-service-pages.js';

export interface ApiOptions {
  /** Where the indexed chain is read from. The caller owns the pool and ends it after closing the API. */
  pool: Db;
  /** Request and error logging; none when omitted or false. */
  logger?: pino.Logger | false;
  /** The level of the one line logged per request; silent when omitted. */
  requestLogLevel?: RequestLogLevel;
  /** Blockscout's rate limit by client IP; none when omitted or null. */
  rateLimit?: RateLimitOptions | null;
  /** The indexer running beside the API, if any, reported by GET /health. */
  indexerStatus?: IndexerStatus | null;
  /** The URL E4's Link header names as its successor ({address_hash} and {id} filled in); none when omitted. */
  instanceTransfersSuccessorUrl?: string | null;
  /**
   * The database connection the websocket's live updates listen on for the indexer's writes (one
   * connection of its own, whatever the number of clients); none when omitted: clients can join, and
   * receive nothing.
   */
  changeConnection?: ChangeListenerOptions['connection'] | null;
  /** The configured range and stages the indexing status reports against; the defaults' (block 0, traces) when omitted. */
  indexing?: IndexingSettings;
  /** Above this mean event loop delay, every request is a quick 503 until the process catches up; none when omitted. */
  maxEventLoopDelayMs?: number | null;
  /** The bulk load under way as last read, whose data endpoints are refused meanwhile; none are when omitted. */
  bulkLoad?: (() => BulkLoadState | null) | null;
  /** Origins allowed to read the API from a browser; any when omitted or null. */
  corsOrigins?: readonly string[] | null;
  /** How far below the indexed head a block is final, so that answers about it are cached long; none is when omitted. */
  finalityDepth?: number | null;
  /** The catch-up's and the trace stage's pace, which GET /health reports; none when omitted. */
  progress?: IndexingProgress | null;
  /** The node's past balances, for those a transaction's state changes need that the index cannot tell; none when omitted. */
  pastCoinBalances?: PastCoinBalances | null;
  /** Contract verification; the verification endpoints answer 503 without it. */
  verification?: VerificationService | null;
  /** Proxy checks asked through the API (verifyproxycontract); refused without it. */
  proxyChecks?: ProxyCheckService | null;
  /**
   * The longest, in milliseconds, an answer shared between the requests of one block is kept while no
   * change comes (shared-answers.ts); answers are shared only while `changeConnection` is heard. None
   * is shared when omitted or 0.
   */
  sharedAnswersMaxAgeMs?: number;
  /** Whether plan-stable statements are prepared on each connection (apiStatement); true when omitted. */
  prepareStatements?: boolean;
  /** What GET /metrics reports beside the index: the pool's connections, the node's errors; neither when omitted. */
  metrics?: Omit<MetricsOptions, 'websocketClients' | 'sharedAnswerBytes' | 'requestSlots' | 'listSlots'>;
}

/** Every endpoint the API serves. */
export const apiRoutes: readonly ApiRoute[] = [
  healthRoute,
  transactionsRoute,
  transactionRawTraceRoute,
  addressBlocksValidatedRoute,
  addressInternalTransactionsRoute,
  blockWithdrawalsRoute,
  addressTokenTransfersRoute,
  tokenInstanceTransfersRoute,
  addressTokensRoute,
  addressNftCollectionsRoute,
  transactionLogsRoute,
  addressLogsRoute,
  tokenRoute,
  tokenCountersRoute,
  tokenTransfersRoute,
  tokenHoldersRoute,
  tokenInstancesRoute,
  tokenInstanceRoute,
  tokenInstanceHoldersRoute,
  tokenInstanceTransfersCountRoute,
  transactionRoute,
  transactionTokenTransfersRoute,
  transactionInternalTransactionsRoute,
  transactionStateChangesRoute,
  blocksRoute,
  blockRoute,
  blockTransactionsRoute,
  addressRoute,
  addressCountersRoute,
  addressTabsCountersRoute,
  addressTransactionsRoute,
  addressCoinBalanceHistoryRoute,
  addressCoinBalanceHistoryByDayRoute,
  mainPageBlocksRoute,
  mainPageTransactionsRoute,
  mainPageIndexingStatusRoute,
  statsRoute,
  transactionsStatsRoute,
  backendVersionRoute,
  searchRoute,
  searchQuickRoute,
  searchCheckRedirectRoute,
  verificationConfigRoute,
  verifiedContractsRoute,
  smartContractsCountersRoute,
  smartContractRoute,
  verificationViaRoute,
  tokenListRoute,
  topAddressesRoute,
  allTokenTransfersRoute,
  allInternalTransactionsRoute,
  allWithdrawalsRoute,
  transactionsChartRoute,
  marketChartRoute,
  statsServiceCountersRoute,
  statsServiceLinesRoute,
  statsServicePagesRoute,
  etherscanRoute,
];

/** The websocket, and the one listener that feeds every client on it and tells the shared answers of each change. */
async function registerLiveUpdates(app: ApiApp, options: ApiOptions, indexing: IndexingContext, shared: SharedAnswers): Promise<LiveHub> {
  const hub = new LiveHub();
  app.addHook('onClose', async () => hub.close());
  registerLiveSocket(app, hub);
  if (!options.changeConnection) return hub;
  const feed = liveFeed(options.pool, hub, indexing, app.log);
  const listener = await listenForChanges({
    connection: options.changeConnection,
    onChange: (change, walPosition) => {
      feed(change, walPosition);
      shared.changed(change, walPosition);
    },
    onError: (error) => {
      shared.heard(false);
      app.log.warn(`live updates paused, listening again shortly: ${error.message}`);
    },
    onListening: () => shared.heard(true),
  });
  app.addHook('onClose', async () => shared.heard(false));
  app.addHook('onClose', () => listener.close());
  return hub;
}

/** The HTTP API, ready to `listen`. */
export async function buildApi(options: ApiOptions): Promise<FastifyInstance> {
  const requestLog = new RequestLog(options.requestLogLevel ?? 'silent');
  const app = Fastify({
    logController: requestLog,
    // Lets a request without a Host header reach the API, which answers it in JSON (http-hygiene.ts).
    http: { requireHostHeader: false },
    clientErrorHandler,
    routerOptions: {
      ignoreTrailingSlash: true,
      // Long path values reach the schema, which names the parameter in its 422.
      maxParamLength: 16 * 1024,
    },
    // Report every bad parameter, not only the first.
    ajv: { customOptions: { allErrors: true } },
    frameworkErrors,
    // On a machine starved of CPU (a start beside a busy indexer and database), registering the
    // plugins has taken more than Fastify's default 10 s: a slow start must not end the process.
    pluginTimeout: 120_000,
    ...(options.logger ? { loggerInstance: options.logger as FastifyBaseLogger } : { logger: false }),
  }).withTypeProvider<TypeBoxTypeProvider>();

  await app.register(websocket, { options: { maxPayload: 64 * 1024 } });
  // Only the routes that accept a body read one (http-hygiene.ts): the verification forms, and the
  // Etherscan-style API's form bodies; each route bounds its size.
  await app.register(multipart, {
    limits: {
      fileSize: formLimits.fileBytes,
      files: formLimits.files,
      fields: formLimits.fields,
      fieldSize: formLimits.fileBytes,
      parts: formLimits.files + formLimits.fields,
    },
    throwFileSizeLimit: true,
  });
  await app.register(formbody);
  registerErrorHandling(app);
  const maxEventLoopDelayMs = options.maxEventLoopDelayMs;
  if (maxEventLoopDelayMs != null) {
    // Event loop delay, not utilisation: the indexer beside the API keeps the loop busy while every
    // request is still served at once; a delay is what a waiting request pays.
    await app.register(underPressure, {
      maxEventLoopDelay: maxEventLoopDelayMs,
      sampleInterval: 250,
      // Answered here; Fastify goes no further with a request once its answer is sent.
      pressureHandler: async (_request, reply) => {
        if (await eventLoopStillLags(maxEventLoopDelayMs)) void sendUnavailable(reply, 'The server is overloaded; try again shortly.');
      },
    });
  }
  const db = clientAwareDb(options.pool, options.prepareStatements ?? true);
  // Before trackRequests: the facts are read as the work of the request.
  registerContractFacts(app, db);
  // Its replay checks run on the pool: they are no request's work.
  const shared = new SharedAnswers(options.pool, options.sharedAnswersMaxAgeMs ?? 0);
  registerSharedAnswers(app, shared);
  trackRequests(app);
  // Before the rate limit: a browser on another origin can read the 429 too.
  await registerCors(app, options.corsOrigins ?? null);
  if (options.rateLimit) await registerRateLimit(app, options.rateLimit);
  registerHttpHygiene(app);
  registerStrictInput(app);
  if (options.bulkLoad) registerBulkLoadGuard(app, options.bulkLoad);
  const requestSlots = registerRequestSlots(app);
  // In this order: the ETag is the hash of the body before compression.
  await registerCaching(app);
  await registerCompression(app);

  const context: ApiContext = {
    db,
    pastCoinBalances: options.pastCoinBalances ?? null,
    verification: options.verification ?? null,
    proxyChecks: options.proxyChecks ?? null,
    indexerStatus: options.indexerStatus ?? null,
    instanceTransfersSuccessorUrl: options.instanceTransfersSuccessorUrl ?? null,
    indexing: options.indexing ?? { firstBlock: 0n, tracesIndexed: true },
    finalityDepth: options.finalityDepth ?? null,
    progress: options.progress ?? null,
    listSlots: slotsLine(),
  };
  await registerOpenApi(app);
  for (const route of apiRoutes) route(app, context);
  const hub = await registerLiveUpdates(app, options, context, shared);
  const answeredEarly = registerMetrics(app, context, {
    pool: null,
    nodeErrors: null,
    ...options.metrics,
    websocketClients: () => hub.clientCount,
    sharedAnswerBytes: () => shared.keptBytes,
    requestSlots,
    listSlots: context.listSlots,
  });
  // A rate limit counts every request: none is answered before it.
  if (!options.rateLimit) {
    answerSharedEarly(app, shared, {
      allowed: () => (options.bulkLoad?.() ?? null) === null,
      answered: (request, route, seconds) => {
        answeredEarly(request.method!, route, seconds);
        requestLog.answeredEarly(app.log, request.method!, request.url!, seconds * 1000);
      },
    });
  }
  await app.ready();
  return app;
}
