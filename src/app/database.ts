import pg from 'pg';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { ConfigError, redactUrl } from '../errors.js';
import { startEmbeddedPostgres } from './embedded-postgres.js';
import { ping } from '../store/probe.js';

export interface Database {
  /** The indexer's and its stages' connections, which migrate and write. */
  pool: pg.Pool;
  /** The API's connections: read-only, each statement and each wait for a connection bounded. */
  apiPool: pg.Pool;
  /** Where verification jobs and results are written: `pool`, or DATABASE_VERIFICATION_URL's role where one is given. */
  verificationPool: pg.Pool;
  /** True when Sextant runs the server itself. */
  embedded: boolean;
  /** Rejects when the database is gone for good (an embedded server that cannot be restarted); never resolves. */
  failed: Promise<never>;
  close(): Promise<void>;
}

/** An idle connection the server dropped is replaced on next use; it must not end the process. */
function logIdleErrors(pool: pg.Pool, logger: Logger): pg.Pool {
  pool.on('error', (error) => logger.warn(`database connection lost: ${error.message}`));
  return pool;
}

/**
 * Ends the pools. Their end() resolves before their connections have closed, and a server stopped
 * right after terminates those: expected then, so no longer reported as a lost connection.
 */
async function endPools(...pools: pg.Pool[]): Promise<void> {
  for (const pool of pools) pool.removeAllListeners('error').on('error', () => undefined);
  await Promise.all(pools.map((pool) => pool.end()));
}

export const apiApplicationName = 'sextant-api';

/**
 * The API's pool: every transaction read-only (a role of its own, DATABASE_READ_ONLY_API_URL, makes
 * that the server's rule too), a statement that runs longer than API_STATEMENT_TIMEOUT_MS cancelled,
 * and a request that waits longer than API_POOL_WAIT_MS for a connection refused, so that an overload
 * is a quick 503 instead of a queue. Set at connection start, these hold for every query. Its
 * connections are named `sextant-api` in pg_stat_activity, unless the URL names them.
 */
function openApiPool(connectionString: string, config: Config, logger: Logger): pg.Pool {
  return logIdleErrors(
    new pg.Pool({
      connectionString: readOnly(connectionString),
      max: config.apiPoolSize,
      connectionTimeoutMillis: config.apiPoolWaitMs,
      statement_timeout: config.apiStatementTimeoutMs,
      application_name: apiApplicationName,
    }),
    logger,
  );
}

/**
 * The connection string with `default_transaction_read_only=on` added to its server options: in the
 * string itself, since an `options` parameter of the string would replace a Pool's own option.
 */
function readOnly(connectionString: string): string {
  const queryStart = connectionString.indexOf('?');
  const base = queryStart < 0 ? connectionString : connectionString.slice(0, queryStart);
  const params = new URLSearchParams(queryStart < 0 ? '' : connectionString.slice(queryStart + 1));
  params.set('options', `${params.get('options') ?? ''} -c default_transaction_read_only=on`.trim());
  return `${base}?${params.toString()}`;
}

export async function openDatabase(config: Config, logger: Logger): Promise<Database> {
  if (config.databaseUrl === null) {
    const server = await startEmbeddedPostgres({
      dataDir: config.dataDir,
      log: (m) => logger.debug(m),
      alert: (m) => logger.error(m),
    });
    const pool = logIdleErrors(new pg.Pool({ connectionString: server.connectionString, max: config.poolSize }), logger);
    const apiPool = openApiPool(server.connectionString, config, logger);
    logger.info(`embedded PostgreSQL running in ${config.dataDir}`);
    return {
      pool,
      apiPool,
      verificationPool: pool,
      embedded: true,
      failed: server.failed,
      async close() {
        await endPools(pool, apiPool);
        await server.stop();
      },
    };
  }
  const pool = logIdleErrors(
    new pg.Pool({ connectionString: config.databaseUrl, max: config.poolSize, connectionTimeoutMillis: 10_000 }),
    logger,
  );
  const apiUrl = config.databaseReadOnlyApiUrl ?? config.databaseUrl;
  const apiPool = openApiPool(apiUrl, config, logger);
  // A verification writes a handful of rows per job: a few connections are enough.
  const verificationPool =
    config.databaseVerificationUrl === null
      ? pool
      : logIdleErrors(new pg.Pool({ connectionString: config.databaseVerificationUrl, max: 4, connectionTimeoutMillis: 10_000 }), logger);
  const close = () => endPools(...new Set([pool, apiPool, verificationPool]));
  const checks = [
    ['DATABASE_URL', config.databaseUrl, pool],
    ['DATABASE_READ_ONLY_API_URL', apiUrl, apiPool],
    ['DATABASE_VERIFICATION_URL', config.databaseVerificationUrl, verificationPool],
  ] as const;
  for (const [setting, url, checked] of checks) {
    if (url === null) continue;
    try {
      await ping(checked);
    } catch (error) {
      await close();
      throw new ConfigError(
        `cannot connect to ${url === config.databaseUrl ? 'DATABASE_URL' : setting} ${redactUrl(url)}: ${(error as Error).message}; check that PostgreSQL runs there and the URL is right`,
      );
    }
  }
  return { pool, apiPool, verificationPool, embedded: false, failed: new Promise<never>(() => undefined), close };
}
