/**
 * `npm run bench:list-scan -- DATABASE_URL N|ledger [N|ledger ...]`: the account lists' checkpoints
 * over a whole indexed chain, as after a bulk load: numbered by the checkpoint stage, scanning N
 * blocks at a time (its LIST_SCAN_BLOCKS), or (`ledger`) at once by the bulk load's ledger step. For
 * each, the checkpoints are dropped and numbered again in this process; it prints the time, the
 * windows, and the checkpoints' count and digest, which must be the same for every run. It rewrites
 * the database's checkpoints: run it on a bench database (the API benchmark's, loaded whole).
 */
import pg from 'pg';
import { buildListCheckpoints } from '../../src/store/list-checkpoints.js';
import { inTransaction } from '../../src/store/transaction.js';
import { writeBenchListCheckpoints } from '../chain/load.js';
import { checkpointDigest } from './checkpoint-check.js';
import { loadAverage } from './machine.js';

const [databaseUrl, ...runs] = process.argv.slice(2);
const windowSizes = runs.map((run) => (run === 'ledger' ? run : Number(run)));
if (databaseUrl === undefined || windowSizes.length === 0 || !windowSizes.every((n) => n === 'ledger' || (Number.isInteger(n) && n > 0))) {
  throw new Error('usage: bench:list-scan -- DATABASE_URL N|ledger [N|ledger ...] (blocks a window, positive whole numbers, or ledger)');
}

/** Numbers the checkpoints as the ledger step or the stage does; the stage's windows. */
async function number(pool: pg.Pool, blocks: number | 'ledger'): Promise<number> {
  if (blocks === 'ledger') {
    await inTransaction(pool, (client) => buildListCheckpoints(client));
    return 0;
  }
  return writeBenchListCheckpoints(pool, blocks);
}

const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
try {
  const digests = new Set<string>();
  for (const blocks of windowSizes) {
    await pool.query('DELETE FROM list_checkpoints');
    await pool.query('DELETE FROM list_scan');
    const started = performance.now();
    const windows = await number(pool, blocks);
    const seconds = (performance.now() - started) / 1000;
    const { n, digest } = await checkpointDigest(pool);
    digests.add(digest);
    const how =
      blocks === 'ledger'
        ? 'at once, as the ledger:'
        : `${String(blocks).padStart(6)} blocks a window: ${windows} window${windows === 1 ? '' : 's'},`;
    console.log(`${how} ${seconds.toFixed(1)} s, ${n} checkpoints (${digest}); load ${loadAverage()}`);
  }
  if (digests.size > 1) throw new Error('the runs numbered different checkpoints');
} finally {
  await pool.end();
}
