import pg from 'pg';
import { randomBytes } from 'node:crypto';
import { migrate } from '../../src/store/migrate.js';

/** The PostgreSQL server the tests run against (see .ci/run). */
export const testServerUrl = process.env.TEST_DATABASE_SERVER ?? 'postgresql://postgres@127.0.0.1:5432';

/** A 0x-prefixed hex string as a bytea query parameter. */
export const bytea = (hex: string): Buffer => Buffer.from(hex.slice(2), 'hex');

export interface TestDatabase {
  url: string;
  pool: pg.Pool;
  drop(): Promise<void>;
}

/** A fresh database of its own for one test file, migrated unless asked not to; drop() removes it. */
export async function createTestDatabase(options: { migrated?: boolean } = {}): Promise<TestDatabase> {
  const name = `sextant_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: `${testServerUrl}/postgres` });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = `${testServerUrl}/${name}`;
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  if (options.migrated ?? true) await migrate(pool);
  return {
    url,
    pool,
    async drop() {
      // pool.end() resolves while its connections are still closing, and the forced drop below
      // terminates them: that termination is expected, not an error of the test.
      pool.on('error', () => undefined);
      await pool.end();
      const client = new pg.Client({ connectionString: `${testServerUrl}/postgres` });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}
