import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres } from '../../src/app/embedded-postgres.js';
import { migrate } from '../../src/store/migrate.js';

/** The PostgreSQL server benchmarked beside the embedded one. */
export const serverUrl = process.env.BENCH_DATABASE_SERVER ?? 'postgresql://postgres@127.0.0.1:5432';

/**
 * Per-database settings for a bulk-writing indexer, set with ALTER DATABASE so that the server's own
 * configuration is left alone: commits do not wait for the WAL flush (a crash loses the last commits
 * whole, never half of one: the indexer fills the gap at its next start), no JIT for short statements,
 * room for sorts and hashes, and planner costs of an SSD.
 */
export const tunedSettings: Readonly<Record<string, string>> = {
  synchronous_commit: 'off',
  jit: 'off',
  work_mem: '64MB',
  random_page_cost: '1.1',
  effective_io_concurrency: '200',
};

async function onServer<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: `${serverUrl}/postgres` });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** A new, empty database on the server (replacing one of the same name), with `tunedSettings`; its URL. */
export async function createTunedDatabase(name: string): Promise<string> {
  await onServer(async (client) => {
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await client.query(`CREATE DATABASE ${name}`);
    for (const [setting, value] of Object.entries(tunedSettings)) await client.query(`ALTER DATABASE ${name} SET ${setting} = '${value}'`);
  });
  return `${serverUrl}/${name}`;
}

export async function dropDatabase(name: string): Promise<void> {
  await onServer((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
}

/** Where one database target keeps the indexed chain and, apart, the COPY floor's rows. */
export interface DatabaseTarget {
  label: string;
  indexUrl: string;
  /** For `sextant index` with its bulk load, beside the usual run's. */
  bulkUrl: string;
  copyUrl: string;
  /** Removes what the target made, except the indexed database when `keepIndex`. */
  close(keepIndex: boolean): Promise<void>;
}

/** Three tuned databases on the server: `<name>` for the indexer, `<name>_bulk` for its bulk load, `<name>_copy` for the COPY floor. */
export async function tunedServerTarget(name: string): Promise<DatabaseTarget> {
  return {
    label: 'tuned server',
    indexUrl: await createTunedDatabase(name),
    bulkUrl: await createTunedDatabase(`${name}_bulk`),
    copyUrl: await createTunedDatabase(`${name}_copy`),
    async close(keepIndex) {
      await dropDatabase(`${name}_copy`);
      await dropDatabase(`${name}_bulk`);
      if (!keepIndex) await dropDatabase(name);
    },
  };
}

/**
 * Sextant's embedded PostgreSQL, as `sextant` runs it when no DATABASE_URL is set, in a new cluster
 * under /tmp (which its OS user can reach): the `sextant` database for the indexer, `bulk` for its bulk
 * load and `copy_floor` beside them.
 */
export async function embeddedTarget(): Promise<DatabaseTarget> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'sextant-bench-'));
  await chmod(dataDir, 0o755);
  const server = await startEmbeddedPostgres({ dataDir });
  const admin = new pg.Client({ connectionString: server.connectionString });
  await admin.connect();
  await admin
    .query('CREATE DATABASE copy_floor')
    .then(() => admin.query('CREATE DATABASE bulk'))
    .finally(() => admin.end());
  // DATABASE_URL must name a host; node-postgres connects to the socket that `?host=` names all the same.
  const indexUrl = server.connectionString.replace('@/', '@localhost/');
  return {
    label: 'embedded',
    indexUrl,
    bulkUrl: indexUrl.replace(/\/sextant(\?|$)/, '/bulk$1'),
    copyUrl: indexUrl.replace(/\/sextant(\?|$)/, '/copy_floor$1'),
    async close() {
      await server.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** A pool on a migrated database, for `work`, then closed. */
export async function withMigratedPool<T>(url: string, work: (pool: pg.Pool) => Promise<T>): Promise<T> {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  try {
    await migrate(pool);
    return await work(pool);
  } finally {
    await pool.end();
  }
}
