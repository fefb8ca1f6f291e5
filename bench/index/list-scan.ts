/**
 * `npm run bench:list-scan -- DATABASE_URL N [N ...]`: the account lists' checkpoint stage over a whole
 * indexed chain, as after a bulk load, scanning N blocks at a time (its LIST_SCAN_BLOCKS). For each N,
 * the checkpoints are dropped and numbered again, window after window, in this process; it prints the
 * time, the windows, and the checkpoints' count and digest, which must be the same for every N. It
 * rewrites the database's checkpoints: run it on a bench database (the API benchmark's, loaded whole).
 */
import pg from 'pg';
import { findListScanWindow, writeListCheckpoints } from '../../src/store/list-checkpoints.js';
import { loadAverage } from './machine.js';

const [databaseUrl, ...sizes] = process.argv.slice(2);
const windowSizes = sizes.map(Number);
if (databaseUrl === undefined || windowSizes.length === 0 || !windowSizes.every((n) => Number.isInteger(n) && n > 0)) {
  throw new Error('usage: bench:list-scan -- DATABASE_URL N [N ...] (blocks a window, positive whole numbers)');
}

const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
try {
  const digests = new Set<string>();
  for (const blocks of windowSizes) {
    await pool.query('DELETE FROM list_checkpoints');
    await pool.query('DELETE FROM list_scan');
    const started = performance.now();
    let windows = 0;
    for (let window = await findListScanWindow(pool, blocks); window !== null; window = await findListScanWindow(pool, blocks)) {
      await writeListCheckpoints(pool, window);
      windows += 1;
    }
    const seconds = (performance.now() - started) / 1000;
    const { rows } = await pool.query<{ n: number; digest: string }>(
      `SELECT count(*)::int AS n, md5(string_agg(concat_ws(':', list, encode(address, 'hex'), ordinal, block_number, index, batch_index), ','
         ORDER BY list, address, ordinal)) AS digest FROM list_checkpoints`,
    );
    const { n, digest } = rows[0]!;
    digests.add(digest);
    console.log(
      `${String(blocks).padStart(6)} blocks a window: ${windows} window${windows === 1 ? '' : 's'}, ${seconds.toFixed(1)} s, ${n} checkpoints (${digest}); load ${loadAverage()}`,
    );
  }
  if (digests.size > 1) throw new Error('the window sizes numbered different checkpoints');
} finally {
  await pool.end();
}
