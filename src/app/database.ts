import pg from 'pg';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { ConfigError } from '../errors.js';
import { startEmbeddedPostgres } from './embedded-postgres.js';
import { ping } from '../store/probe.js';

export interface Database {
  pool: pg.Pool;
  /** True when Sextant runs the server itself. */
  embedded: boolean;
  close(): Promise<void>;
}

/** An idle connection the server dropped is replaced on next use; it must not end the process. */
function logIdleErrors(pool: pg.Pool, logger: Logger): pg.Pool {
  pool.on('error', (error) => logger.warn(`database connection lost: ${error.message}`));
  return pool;
}

export async function openDatabase(config: Config, logger: Logger): Promise<Database> {
  if (config.databaseUrl === null) {
    const server = await startEmbeddedPostgres({ dataDir: config.dataDir, log: (m) => logger.debug(m) });
    const pool = logIdleErrors(new pg.Pool({ connectionString: server.connectionString, max: 10 }), logger);
    logger.info(`embedded PostgreSQL running in ${config.dataDir}`);
    return {
      pool,
      embedded: true,
      async close() {
        await pool.end();
        await server.stop();
      },
    };
  }
  const pool = logIdleErrors(new pg.Pool({ connectionString: config.databaseUrl, max: 10, connectionTimeoutMillis: 10_000 }), logger);
  try {
    await ping(pool);
  } catch (error) {
    await pool.end();
    const where = new URL(config.databaseUrl);
    where.password = '';
    throw new ConfigError(
      `cannot connect to DATABASE_URL ${where.toString()}: ${(error as Error).message}; check that PostgreSQL runs there and the URL is right`,
    );
  }
  return { pool, embedded: false, close: () => pool.end() };
}
