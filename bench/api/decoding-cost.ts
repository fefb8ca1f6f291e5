/**
 * What decoding costs a page on an indexed database: the decoded inputs of the 50 newest transactions
 * (as E2's first page lists them) and the decoded logs of the busiest emitter's 50 newest logs (as its
 * logs page lists them), each read and decoded 300 times after 50 for warm-up, lookups of ABIs and
 * candidates included, statements prepared as the API prepares them.
 * Run: npm run bench:decoding-cost -- <database url>
 */
import pg from 'pg';
import { decodeLogs, decodeTransactionInputs } from '../../src/api/contract-decoding.js';
import { apiStatement } from '../../src/api/prepared-statements.js';
import type { Address } from '../../src/model.js';
import { hexFromBytea } from '../../src/store/encode.js';
import { listAddressLogs } from '../../src/store/read/logs.js';
import { type Db, SqlParams } from '../../src/store/read/sql.js';
import { readMinedTransactions } from '../../src/store/read/transactions.js';

const [databaseUrl] = process.argv.slice(2);
if (databaseUrl === undefined) throw new Error('usage: npm run bench:decoding-cost -- <database url>');
const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
const db: Db = { query: (text, values) => pool.query(apiStatement(text, values, true)) };

async function perPage(run: () => Promise<unknown[]>): Promise<{ ms: number; decoded: number }> {
  for (let i = 0; i < 50; i++) await run();
  let decoded = 0;
  const started = performance.now();
  for (let i = 0; i < 300; i++) decoded = (await run()).filter((d) => d !== null).length;
  return { ms: (performance.now() - started) / 300, decoded };
}

try {
  const { rows } = await pool.query<{ number: string }>('SELECT max(number) AS number FROM blocks WHERE consensus');
  const params = new SqlParams();
  const head = params.add(rows[0]!.number);
  const newest = await readMinedTransactions(
    db,
    `SELECT * FROM transactions WHERE block_number <= ${head} ORDER BY block_number DESC, index DESC LIMIT 50`,
    params,
  );
  const busiest = await pool.query<{ address: Buffer }>('SELECT address FROM logs GROUP BY address ORDER BY count(*) DESC LIMIT 1');
  const logs = await listAddressLogs(db, hexFromBytea(busiest.rows[0]!.address) as Address, null, null, 50);
  const calls = await perPage(() => decodeTransactionInputs(db, newest));
  const events = await perPage(() => decodeLogs(db, logs));
  process.stdout.write(`50 newest transactions: ${calls.decoded} decoded, ${calls.ms.toFixed(2)} ms a page\n`);
  process.stdout.write(`50 newest logs of the busiest emitter: ${events.decoded} decoded, ${events.ms.toFixed(2)} ms a page\n`);
} finally {
  await pool.end();
}
