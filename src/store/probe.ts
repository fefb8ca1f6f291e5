import type { Db } from './read/sql.js';

/** Rejects unless the server answers a statement: a wrong URL fails at start, not at first use. */
export async function ping(db: Db): Promise<void> {
  await db.query('SELECT 1');
}

/** Whether the migrations have created the schema. */
export async function hasSchema(db: Db): Promise<boolean> {
  const { rows } = await db.query<{ blocks: string | null }>("SELECT to_regclass('blocks')::text AS blocks");
  return rows[0]?.blocks != null;
}

/** Creates the database of this name on the server the connection is to, unless it exists. */
export async function createDatabaseUnlessExists(db: Db, name: string): Promise<void> {
  const { rowCount } = await db.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
  if (rowCount === 0) await db.query(`CREATE DATABASE ${name}`);
}
