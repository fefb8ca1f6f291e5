import { readdir, readFile } from 'node:fs/promises';
import type { Pool } from 'pg';
import { withClient } from './transaction.js';

// Beside this module: src/store/migrations, or the copy the build puts in dist/store/migrations.
const migrationsDir = new URL('migrations/', import.meta.url);

/** Applies the SQL files in migrations/ in name order, each once, each in its own transaction. */
export function migrate(pool: Pool): Promise<string[]> {
  return withClient(pool, async (client) => {
    try {
      // One migrator at a time per database, whichever process runs it.
      await client.query('SELECT pg_advisory_lock(7411)');
      await client.query(
        'CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
      );
      const done = new Set((await client.query<{ name: string }>('SELECT name FROM schema_migrations')).rows.map((r) => r.name));
      const files = (await readdir(migrationsDir)).filter((f) => f.endsWith('.sql')).sort();
      const applied: string[] = [];
      for (const file of files) {
        if (done.has(file)) continue;
        const sql = await readFile(new URL(file, migrationsDir), 'utf8');
        await client.query('BEGIN');
        try {
          await client.query(sql);
          await client.query('INSERT INTO schema_migrations (name) VALUES ($1)', [file]);
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK');
          throw new Error(`migration ${file} failed: ${(error as Error).message}`);
        }
        applied.push(file);
      }
      return applied;
    } finally {
      await client.query('SELECT pg_advisory_unlock(7411)').catch(() => undefined);
    }
  });
}
