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
