/**
 * `node --import tsx bench/ledger/main.ts --scale small|full [--blocks N]`: the bench chain (or its first
 * N blocks) loaded through the indexer's own code into a tuned database, then the ledger that the block
 * writer and the trace stage kept emptied and built again in bulk (src/store/bulk-ledger.ts): the time
 * and rows of each step, and whether each table came out as the indexer left it. The database is
 * dropped at the end.
 */
import pg from 'pg';
import { buildLedger } from '../../src/store/bulk-ledger.js';
import { loadBenchChain } from '../chain/load.js';
import { parseBlocks, parseScale } from '../chain/scale.js';
import { createTunedDatabase, dropDatabase } from '../index/databases.js';
import { describeMachine, loadAverage } from '../index/machine.js';

/**
 * What each step builds, as compared: the columns the metadata stages set (token names, supplies,
 * NFT metadata, and the supply marks they clear) are theirs, so balance rows are compared without the
 * token name, tokens and instances by their ledger columns, and the coin balance marks as a set.
 */
const compared: Readonly<Record<string, string>> = {
  tokens: 'address, type, holders_count, transfers_count',
  address_token_balances: 'address, token_address, token_id, value, token_type',
  token_instances: 'token_address, token_id, owner, owner_block_number, owner_log_index, transfers_count',
  address_counters: '*',
  chain_totals: '*',
  addresses: '*',
  coin_balance_marks: 'address',
};

const args = process.argv.slice(2);
const scale = parseScale(args);
const blocks = parseBlocks(args);
const report = (line: string) => process.stdout.write(`${line}\n`);
const name = `sextant_bench_ledger_${scale}`;

report(`bench:ledger (${scale}${blocks === undefined ? '' : `, first ${blocks} blocks`}) on ${describeMachine()}`);
const databaseUrl = await createTunedDatabase(name);
try {
  await loadBenchChain({ scale, blocks, databaseUrl, report });
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  try {
    const tables = Object.keys(compared);
    for (const table of tables) {
      await pool.query(`CREATE TABLE indexed_${table} AS SELECT ${compared[table]} FROM ${table}`);
    }
    const counts = await pool.query<{ transactions: string; transfers: string; frames: string }>(
      `SELECT (SELECT count(*) FROM transactions) AS transactions, (SELECT count(*) FROM token_transfers) AS transfers,
              (SELECT count(*) FROM internal_transactions) AS frames`,
    );
    const { transactions, transfers, frames } = counts.rows[0]!;
    report(`base rows: ${transactions} transactions, ${transfers} token transfers, ${frames} internal transactions`);
    await pool.query(`TRUNCATE ${tables.join(', ')}`);
    await pool.query('VACUUM ANALYZE');
    report(`load average before the build: ${loadAverage()}`);
    let total = 0;
    await buildLedger(pool, ({ name: step, milliseconds }) => {
      total += milliseconds;
      report(`  ${step.padEnd(20)} ${milliseconds.toFixed(0).padStart(8)} ms`);
    });
    report(`  ${'all steps'.padEnd(20)} ${total.toFixed(0).padStart(8)} ms; load average after: ${loadAverage()}`);
    for (const table of tables) {
      const { rows } = await pool.query<{ built: string; differing: string }>(
        `SELECT (SELECT count(*) FROM ${table}) AS built,
           (SELECT count(*) FROM ((SELECT ${compared[table]} FROM ${table} EXCEPT ALL SELECT * FROM indexed_${table})
              UNION ALL (SELECT * FROM indexed_${table} EXCEPT ALL SELECT ${compared[table]} FROM ${table})) d) AS differing`,
      );
      report(`  ${table.padEnd(24)} ${rows[0]!.built.padStart(9)} rows, ${rows[0]!.differing} differing from the indexer's`);
    }
  } finally {
    await pool.end();
  }
} finally {
  await dropDatabase(name);
}
