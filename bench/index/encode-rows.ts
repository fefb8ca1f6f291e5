/**
 * `npm run bench:rows -- [--scale small|full] [--blocks N] [--repetitions R] [--binary]`: the indexer's own CPU per
 * row. The chain's first N blocks (5,000 of the full scale by default: 100,000 transactions) are
 * generated and decoded once; then, R times, every batch of 10 blocks is turned into COPY rows by the
 * indexer's code and sent with its COPY into index-free copies of the tables (temporary tables LIKE the
 * real ones), so what is measured is the encoding in this process and the parsing in PostgreSQL's, not
 * index upkeep. Both CPU times are read from the operating system, per 100,000 transactions. With
 * --binary, the same rows are then sent as binary COPY input that PostgreSQL made from them beforehand:
 * PostgreSQL's side of a binary COPY, beside its side of the CSV one (the indexer has no binary encoder).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { PoolClient } from 'pg';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';
import type { BlockBundle, BlockTraces } from '../../src/model.js';
import { copyRows } from '../../src/store/copy.js';
import { blockRowSets } from '../../src/store/write-blocks.js';
import { internalTransactionRowSet } from '../../src/store/write-traces.js';
import { createChainGenerator } from '../chain/generate.js';
import { chainShape, parseBlocks, parseScale } from '../chain/scale.js';
import { createTunedDatabase, dropDatabase, withMigratedPool } from './databases.js';
import { countRows, generatedBlocks, noRows, addRows, totalRows } from './floors.js';
import { describeMachine, loadAverage } from './machine.js';

const args = process.argv.slice(2);
const scale = args.includes('--scale') ? parseScale(args) : 'full';
const blocks = parseBlocks(args) ?? 5_000;
const repetitionsAt = args.indexOf('--repetitions');
const repetitions = repetitionsAt >= 0 ? Number(args[repetitionsAt + 1]) : 5;
if (!Number.isInteger(repetitions) || repetitions < 1) throw new Error('--repetitions must be a positive whole number');
const withBinary = args.includes('--binary');

/** The indexer's batch (INDEXER_CATCHUP_BLOCKS_BATCH_SIZE's default): one COPY per table per batch. */
const BATCH_BLOCKS = 10;
const tables = ['blocks', 'transactions', 'transaction_authorizations', 'withdrawals', 'token_transfers', 'logs', 'internal_transactions'];

const clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }));

/** User plus system CPU seconds of a process of this machine (the database server's backend). */
function processSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / clockTicks;
}

const ownSeconds = (): number => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
};

const chain = createChainGenerator(chainShape(scale, blocks));
const batches: { bundles: BlockBundle[]; traces: BlockTraces[] }[] = [];
const rows = noRows();
for await (const batch of generatedBlocks(chain, BATCH_BLOCKS)) {
  batches.push(batch);
  addRows(rows, countRows(batch.bundles, batch.traces));
}
const perHundredThousand = 100_000 / rows.transactions;
process.stdout.write(
  `## COPY rows (${scale}: blocks 0..${chain.head}, ${rows.transactions} transactions, ${totalRows(rows)} primary rows); ${describeMachine()}\n`,
);

/** One batch's rows of one table as binary COPY input. */
interface BinaryRows {
  table: string;
  columns: readonly string[];
  data: Buffer;
}

/**
 * Each batch's rows as binary COPY input, made by PostgreSQL itself from the indexer's CSV rows (COPY
 * in, COPY TO STDOUT in binary, TRUNCATE): what a binary encoder in the indexer would send.
 */
async function binaryBatches(client: PoolClient): Promise<BinaryRows[][]> {
  const made: BinaryRows[][] = [];
  for (const { bundles, traces } of batches) {
    const batch: BinaryRows[] = [];
    for (const set of [...blockRowSets(bundles), internalTransactionRowSet(traces)]) {
      if (set.rows.length === 0) continue;
      await copyRows(client, set.table, set.columns, set.rows);
      const chunks: Buffer[] = [];
      for await (const chunk of client.query(copyTo(`COPY ${set.table} (${set.columns.join(', ')}) TO STDOUT (FORMAT binary)`)))
        chunks.push(chunk as Buffer);
      batch.push({ table: set.table, columns: set.columns, data: Buffer.concat(chunks) });
      await client.query(`TRUNCATE ${set.table}`);
    }
    made.push(batch);
  }
  return made;
}

async function copyBinary(client: PoolClient, { table, columns, data }: BinaryRows): Promise<void> {
  const stream = client.query(copyFrom(`COPY ${table} (${columns.join(', ')}) FROM STDIN (FORMAT binary)`));
  await new Promise<void>((resolve, reject) => {
    stream.on('finish', resolve);
    stream.on('error', reject);
    stream.end(data);
  });
}

/** Runs `writeBatch` over every batch, each in a transaction, R times, reporting both processes' CPU. */
async function measure(client: PoolClient, backendPid: number, label: string, writeBatch: (index: number) => Promise<void>): Promise<void> {
  for (let repetition = 1; repetition <= repetitions; repetition++) {
    const started = { wall: performance.now(), own: ownSeconds(), server: processSeconds(backendPid) };
    for (let index = 0; index < batches.length; index++) {
      await client.query('BEGIN');
      await writeBatch(index);
      await client.query('COMMIT');
    }
    const own = ownSeconds() - started.own;
    const server = processSeconds(backendPid) - started.server;
    const wall = (performance.now() - started.wall) / 1000;
    const { rows: stored } = await client.query<{ count: string }>(
      `SELECT ${tables.map((t) => `(SELECT count(*) FROM ${t})`).join(' + ')} AS count`,
    );
    process.stdout.write(
      `${label}, repetition ${repetition}: ${stored[0]!.count} rows in ${wall.toFixed(2)} s; per 100,000 transactions: indexer ${(own * perHundredThousand).toFixed(2)} core-s, ` +
        `PostgreSQL ${(server * perHundredThousand).toFixed(2)} core-s; ${Math.round(Number(stored[0]!.count) / own)} rows per indexer core-s; load ${loadAverage()}\n`,
    );
    await client.query(`TRUNCATE ${tables.join(', ')}`);
  }
}

const name = 'sextant_bench_rows';
const url = await createTunedDatabase(name);
try {
  await withMigratedPool(url, async (pool) => {
    const client = await pool.connect();
    try {
      for (const table of tables) await client.query(`CREATE TEMPORARY TABLE ${table} (LIKE public.${table} INCLUDING DEFAULTS)`);
      const { rows: backend } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      const backendPid = backend[0]!.pid;
      await measure(client, backendPid, 'CSV rows built by the indexer', async (index) => {
        const { bundles, traces } = batches[index]!;
        for (const set of [...blockRowSets(bundles), internalTransactionRowSet(traces)])
          await copyRows(client, set.table, set.columns, set.rows);
      });
      if (withBinary) {
        const binary = await binaryBatches(client);
        const bytes = binary.flat().reduce((sum, rows) => sum + rows.data.length, 0);
        process.stdout.write(`binary COPY input made by PostgreSQL: ${(bytes / 1e6).toFixed(1)} MB\n`);
        await measure(client, backendPid, "binary rows made beforehand (PostgreSQL's side only)", async (index) => {
          for (const rows of binary[index]!) await copyBinary(client, rows);
        });
      }
    } finally {
      client.release();
    }
  });
} finally {
  await dropDatabase(name);
}
