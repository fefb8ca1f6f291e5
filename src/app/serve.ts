import type { Logger } from 'pino';
import { buildApi } from '../api/server.js';
import type { Config } from '../config.js';
import { ConfigError } from '../errors.js';
import type { Indexer } from '../indexer/blocks/indexer.js';
import type { IndexingProgress, NodeRequestErrors } from '../model.js';
import { hasSchema } from '../store/probe.js';
import { watchBulkLoad } from './bulk-load-watch.js';
import { openDatabase, type Database } from './database.js';
import { onShutdownSignal, Resources } from './resources.js';

async function requireSchema(database: Database): Promise<void> {
  if (!(await hasSchema(database.apiPool))) {
    throw new ConfigError('the database has no Sextant schema yet; run `sextant migrate` or `sextant start` first');
  }
}

export async function listen(
  config: Config,
  logger: Logger,
  database: Database,
  resources: Resources,
  running: { indexer: Indexer; progress: IndexingProgress; node: { errors: NodeRequestErrors } } | null,
): Promise<string> {
  const bulkLoad = await watchBulkLoad(database.pool, logger);
  resources.add(async () => bulkLoad.stop());
  const api = await buildApi({
    pool: database.apiPool,
    bulkLoad: bulkLoad.current,
    logger: logger.child({ component: 'api' }),
    indexerStatus: running?.indexer.status ?? null,
    progress: running?.progress ?? null,
    metrics: { pool: database.pool, nodeErrors: running?.node.errors ?? null },
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
  });
  resources.add(() => api.close());
  try {
    await api.listen({ port: config.port, host: config.host });
  } catch (error) {
    throw new ConfigError(`cannot listen on ${config.host}:${config.port}: ${(error as Error).message}; choose another PORT`);
  }
  const address = api.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : config.port;
  return `http://localhost:${port}`;
}

export function printTryUrls(logger: Logger, base: string, sample: { address: string | null; block: number | null }): void {
  const urls = [`${base}/api/v2/transactions`, `${base}/api/v2/transactions?filter=validated&type=contract_call`];
  if (sample.block !== null) urls.push(`${base}/api/v2/blocks/${sample.block}/withdrawals`);
  if (sample.address !== null) urls.push(`${base}/api/v2/addresses/${sample.address}/blocks-validated`);
  logger.info(`API listening on ${base}; try:\n  ${urls.join('\n  ')}`);
}

export async function serveCommand(config: Config, logger: Logger): Promise<void> {
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
