import type { Pool, PoolClient } from 'pg';

/**
 * Runs `work` with a connection of its own. A connection that breaks fails the statement in flight,
 * and also emits 'error', which the pool hears only of idle connections: heard here, it cannot end the
 * process (a database server restarting under Sextant); the pool drops the broken connection on release.
 */
export async function withClient<T>(pool: Pool, work: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  const ignore = () => undefined;
  client.on('error', ignore);
  try {
    return await work(client);
  } finally {
    client.off('error', ignore);
    client.release();
  }
}

/** Runs `work` in one database transaction: committed if it resolves, rolled back if it throws. */
export function inTransaction<T>(pool: Pool, work: (client: PoolClient) => Promise<T>): Promise<T> {
  return runTransaction(pool, 'BEGIN', work);
}

/**
 * inTransaction for a background stage's save, whose commit does not wait for the WAL flush. Such a
 * save stores what a row of the database asks for (a mark, `blocks.traced_at` or
 * `tokens.metadata_fetched_at` still null) and clears that row in the same transaction: a commit that
 * a server crash loses leaves the row asking again, and the stage does the work again. The block
 * writer's commits stay synchronous: the indexer goes on from the blocks it was told are stored.
 */
export function inRedoableTransaction<T>(pool: Pool, work: (client: PoolClient) => Promise<T>): Promise<T> {
  return runTransaction(pool, 'BEGIN; SET LOCAL synchronous_commit = off', work);
}

function runTransaction<T>(pool: Pool, begin: string, work: (client: PoolClient) => Promise<T>): Promise<T> {
  return withClient(pool, async (client) => {
    try {
      await client.query(begin);
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  });
}
