import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { buildApi } from '../api/server.js';
import type { VerificationService } from '../api/route.js';
import type { Config } from '../config.js';
import { ConfigError } from '../errors.js';
import type { Indexer } from '../indexer/blocks/indexer.js';
import type { IndexingProgress } from '../model.js';
import { hasSchema } from '../store/probe.js';
import { requestProxyCheck } from '../store/proxies.js';
import { createVerifier } from '../verification/index.js';
import { watchBulkLoad } from './bulk-load-watch.js';
import type { NodeConnection } from './node.js';
import { pastCoinBalancesFromNode } from './past-coin-balances.js';
import { startVerificationJobs } from './verification-jobs.js';
import { openDatabase, type Database } from './database.js';
import { onShutdownSignal, Resources } from './resources.js';

async function requireSchema(database: Database): Promise<void> {
  if (!(await hasSchema(database.apiPool))) {
    throw new ConfigError('the database has no Sextant schema yet; run `sextant migrate` or `sextant start` first');
  }
}

/**
 * Closes the API: new connections are refused, requests in flight finish. Fastify closes the
 * connections idle when the close begins; one whose request was in flight turns idle after, and would
 * hold the close (and the process) for its keep-alive timeout, 72 s: those are closed as they turn idle.
 */
async function closeApi(api: FastifyInstance): Promise<void> {
  const idle = setInterval(() => api.server.closeIdleConnections(), 100);
  try {
    await api.close();
  } finally {
    clearInterval(idle);
  }
}

export async function listen(
  config: Config,
  logger: Logger,
  database: Database,
  resources: Resources,
  running: { indexer: Indexer; progress: IndexingProgress; node: NodeConnection } | null,
): Promise<string> {
  const bulkLoad = await watchBulkLoad(database.pool, logger);
  resources.add(async () => bulkLoad.stop());
  const verification = startVerification(config, logger, database, resources);
  const api = await buildApi({
    pool: database.apiPool,
    bulkLoad: bulkLoad.current,
    logger: logger.child({ component: 'api' }),
    indexerStatus: running?.indexer.status ?? null,
    progress: running?.progress ?? null,
    metrics: { pool: database.pool, nodeErrors: running?.node.errors ?? null },
    pastCoinBalances: running === null ? null : pastCoinBalancesFromNode(running.node, logger.child({ component: 'api' })),
    instanceTransfersSuccessorUrl: config.instanceTransfersSuccessorUrl,
    changeConnection: database.pool.options,
    indexing: { firstBlock: config.firstBlock, tracesIndexed: !config.disableInternalTransactions },
    requestLogLevel: config.requestLogLevel,
    corsOrigins: config.corsAllowedOrigins,
    finalityDepth: config.maxReorgDepth,
    rateLimit: config.rateLimitDisabled
      ? null
      : { max: config.rateLimitByIp, intervalMs: config.rateLimitByIpInterval, allowList: config.rateLimitWhitelistedIps },
    maxEventLoopDelayMs: config.apiMaxEventLoopDelayMs,
    sharedAnswersMaxAgeMs: config.apiSharedAnswersMaxAgeMs,
    prepareStatements: config.apiPreparedStatements,
    verification,
    proxyChecks: { request: (address) => requestProxyCheck(database.pool, address) },
  });
  resources.add(() => closeApi(api));
  try {
    await api.listen({ port: config.port, host: config.host });
  } catch (error) {
    throw new ConfigError(`cannot listen on ${config.host}:${config.port}: ${(error as Error).message}; choose another PORT`);
  }
  const address = api.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : config.port;
  return `http://localhost:${port}`;
}

/**
 * Contract verification beside the API: compiles in processes of their own, jobs in the database's
 * queue, results written through the primary (DATABASE_URL, or DATABASE_VERIFICATION_URL's role that may
 * write the verification tables only), since the API's own connections only read.
 */
function startVerification(config: Config, logger: Logger, database: Database, resources: Resources): VerificationService {
  const verifier = createVerifier({
    cacheDir: config.compilersDir ?? join(config.dataDir, 'compilers'),
    releasesUrl: config.solcBinApiUrl,
    compileTimeoutMs: config.verificationTimeoutMs,
    compileMemoryMb: config.verificationMemoryMb,
    maxConcurrentCompiles: config.verificationConcurrency,
    maxQueuedCompiles: config.verificationQueue,
    logger: logger.child({ component: 'verifier' }),
  });
  const jobs = startVerificationJobs({
    pool: database.verificationPool,
    verifier,
    logger: logger.child({ component: 'verification' }),
    concurrency: config.verificationConcurrency,
    leaseMs: 30_000,
    pollIntervalMs: 2_000,
  });
  // The form's compiler list asks the bundled build its version: asked now, the first visitor does not wait for a compiler to load.
  // A failure here (a shutdown that kills the compiler, say) is left to the next ask, which tries again and answers it.
  void verifier.compilers().catch(() => undefined);
  resources.add(() => verifier.close());
  resources.add(() => jobs.close());
  return { submit: (address, request) => jobs.submit(address, request), compilers: () => verifier.compilers() };
}

export function printTryUrls(logger: Logger, base: string, sample: { address: string | null; block: number | null }): void {
  const urls = [`${base}/api/v2/transactions`, `${base}/api/v2/transactions?filter=validated&type=contract_call`];
  if (sample.block !== null) urls.push(`${base}/api/v2/blocks/${sample.block}/withdrawals`);
  if (sample.address !== null) urls.push(`${base}/api/v2/addresses/${sample.address}/blocks-validated`);
  logger.info(`API listening on ${base}; try:\n  ${urls.join('\n  ')}`);
}

/**
 * How far, in percent, V8 lets the old generation grow past what its last full collection kept. On a
 * machine with memory to spare it lets it grow by up to 300%: under 64 clients, `serve`'s 50 MB of live
 * objects reached 333 MB of RSS before a full collection; at 50% the peak was 198 MB, at the same
 * requests/s (bench/README.md, "Memory of serve"). The price is a full collection more often; since
 * little of a request reaches the old generation, 3 in 3,000 requests of E2's deep page ("Garbage
 * promoted per request"). V8 reads the flag at each collection, so it can be set once running.
 */
const HEAP_GROWING_PERCENT = 50;

export async function serveCommand(config: Config, logger: Logger): Promise<void> {
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  const resources = new Resources();
  const shutdown = onShutdownSignal(resources, logger);
  try {
    const database = await openDatabase(config, logger);
    resources.add(() => database.close());
    await requireSchema(database);
    const base = await listen(config, logger, database, resources, null);
    printTryUrls(logger, base, { address: null, block: null });
    await Promise.race([shutdown, database.failed]);
  } finally {
    await resources.closeAll();
  }
}
