import pg from 'pg';
import { createRpcClient } from '../../src/chain/rpc.js';
import { writeBenchListCheckpoints } from '../chain/load.js';
import { runMetadataStages } from '../chain/metadata.js';
import { startBenchNode } from '../chain/node-process.js';
import { createChainGenerator } from '../chain/generate.js';
import { chainShape, type BenchScale } from '../chain/scale.js';
import { embeddedTarget, tunedServerTarget, tunedSettings, withMigratedPool, type DatabaseTarget } from './databases.js';
import { copyFloor, fetchAndDecodeFloor, nodeFloor, totalRows, type Batching, type RowCounts } from './floors.js';
import { checkCheckpoints, checkpointDigest, checkpointsScanned } from './checkpoint-check.js';
import { cpuSnapshot, describeCpu, describeFloorCpu, floorCpuSnapshot, postmasterPid } from './cpu.js';
import { describeMachine, loadAverage } from './machine.js';
import { megabytes } from './process-memory.js';
import { runSextantIndex, type IndexRun, type PhaseChange } from './sextant-index.js';

export interface IndexBenchOptions {
  scale: BenchScale;
  /** Only the first `blocks` blocks of the scale's chain. */
  blocks?: number;
  report: (line: string) => void;
  /** Keep the tuned server's indexed database (for the API benchmark) rather than drop it. */
  keepDatabase: boolean;
  /**
   * Only the fetch-and-decode floor and the usual run into the embedded PostgreSQL (`--only usual`), or
   * only the floor and the bulk load's runs into both databases (`--only bulk`).
   */
  only?: 'usual' | 'bulk';
  /**
   * Where the runs write the CPU of each statement (`--statements FILE`; `.<target>` is added to the
   * name of the usual runs' files, `.bulk-<target>` to the bulk load's).
   */
  statementsFile?: string;
}

export interface IndexBenchResult {
  /** The tuned server's database, indexed with blocks, traces and token metadata (dropped unless kept). */
  databaseUrl: string;
  rows: RowCounts;
  fetchFloorSeconds: number;
  targets: { label: string; copySeconds: number; index: IndexRun }[];
}

/** Sextant's defaults (INDEXER_CATCHUP_BLOCKS_BATCH_SIZE, INDEXER_CATCHUP_BLOCKS_CONCURRENCY), which `sextant index` runs with. */
const batching: Batching = { batchSize: 10, concurrency: 4 };

/** Indexing at least this share of the fetch-and-decode floor's rows per second is the target. */
const TARGET_SHARE_OF_FETCH_FLOOR = 0.5;

/** The bulk load's targets: the whole run, switch included, and its load phase alone, as shares of the floor. */
const BULK_TARGET_SHARE = 0.6;
const BULK_LOAD_PHASE_TARGET_SHARE = 0.7;

/** Sextant's default INDEXER_BULK_LOAD_DISTANCE: the blocks this close to the head are indexed as usual after a bulk load. */
const BULK_LOAD_DISTANCE = 1_000;

/** The usual run is measured with the bulk load off; the bulk run takes every block that far below the head. */
const usualEnv = { INDEXER_BULK_LOAD_MIN_BLOCKS: '0' };
const bulkEnv = { INDEXER_BULK_LOAD_MIN_BLOCKS: '1', INDEXER_BULK_LOAD_DISTANCE: String(BULK_LOAD_DISTANCE) };

/**
 * Item 2 of the benchmark: `sextant index` over the generated chain into the embedded PostgreSQL and a
 * tuned server, beside the RPC-and-JSON floor (fetch and decode, no writes) and the database floor (the
 * same rows COPYed straight into the same tables), with the indexer's memory sampled along the run.
 */
export async function runIndexBench(options: IndexBenchOptions): Promise<IndexBenchResult> {
  const { report } = options;
  const chain = createChainGenerator(chainShape(options.scale, options.blocks));
  const lastBlock = chain.head;
  report(`## index (${options.scale}: blocks 0..${lastBlock}); ${describeMachine()}`);
  report(
    `batch size ${batching.batchSize}, concurrency ${batching.concurrency}; tuned server: ALTER DATABASE ... SET ${Object.entries(
      tunedSettings,
    )
      .map(([k, v]) => `${k}=${v}`)
      .join(', ')}`,
  );
  const node = await startBenchNode(options.scale, options.blocks);
  const targets: IndexBenchResult['targets'] = [];
  let kept: DatabaseTarget | null = null;
  try {
    if (options.only !== 'usual') {
      const served = await nodeFloor(node.url, lastBlock, batching);
      report(
        line(
          `node alone, blocks 0..${served.blocks - 1} (answers parsed only)`,
          served.seconds,
          { blocks: served.blocks },
          `load ${loadAverage()}`,
        ),
      );
    }
    const floorCpu = await floorCpuSnapshot(node.pid);
    const floor = await fetchAndDecodeFloor(node.url, lastBlock, batching);
    const floorCpuSpent = describeFloorCpu(floorCpu, await floorCpuSnapshot(node.pid));
    const rows = floor.rows;
    report(`rows per run: ${describeRows(rows)}`);
    report(line('fetch + decode floor (no writes)', floor.seconds, rowsOf(rows), `load ${loadAverage()}`));
    report(`  ${floorCpuSpent}`);

    const opens = [embeddedTarget, () => tunedServerTarget(`sextant_bench_${options.scale}`)];
    const bulkRun = {
      nodeUrl: node.url,
      nodePid: node.pid,
      lastBlock,
      rows,
      floorSeconds: floor.seconds,
      statementsFile: options.statementsFile,
    };
    for (const open of options.only === 'usual' ? opens.slice(0, 1) : opens) {
      const target = await open();
      try {
        if (options.only === 'bulk') {
          await runBulk(report, { ...bulkRun, target, usual: null });
          continue;
        }
        const copy = options.only === 'usual' ? null : await withMigratedPool(target.copyUrl, (pool) => copyFloor(pool, chain));
        if (copy !== null) {
          checkSameRows(copy.rows, rows, `the COPY floor (${target.label})`);
          report(line(`COPY floor, ${target.label}`, copy.seconds, rowsOf(rows), `load ${loadAverage()}`));
        }
        const postmaster = await postmasterPid(target.indexUrl);
        const usualCpu = await cpuSnapshot(node.pid, postmaster);
        const statementsFile = options.statementsFile && `${options.statementsFile}.${target.label.replace(' ', '-')}`;
        const index = await runSextantIndex({
          nodeUrl: node.url,
          lastBlock,
          databaseUrl: target.indexUrl,
          env: statementsFile === undefined ? usualEnv : { ...usualEnv, ...statementCpuEnv(statementsFile) },
        });
        const usualCpuSpent = describeCpu(usualCpu, await cpuSnapshot(node.pid, postmaster));
        checkSameRows(await countStoredRows(target.indexUrl), rows, `sextant index (${target.label})`);
        const share = floor.seconds / index.seconds;
        report(
          line(
            `sextant index, ${target.label}`,
            index.seconds,
            rowsOf(rows),
            [
              `peak RSS ${megabytes(index.peakRss)}`,
              `${share.toFixed(2)} of the fetch floor (target >= ${TARGET_SHARE_OF_FETCH_FLOOR}: ${share >= TARGET_SHARE_OF_FETCH_FLOOR ? 'met' : 'missed'})`,
              ...(copy === null ? [] : [`${(copy.seconds / index.seconds).toFixed(2)} of the COPY floor`]),
              `load ${loadAverage()}`,
            ].join(', '),
          ),
        );
        report(`  memory along the run: ${memoryProfile(index, lastBlock + 1)}`);
        report(`  ${usualCpuSpent}`);
        report(`  storage: ${await storageFigures(target.indexUrl)}`);
        if (statementsFile !== undefined) report(`  CPU of each statement: ${statementsFile}`);
        if (copy === null) continue;
        await runBulk(report, { ...bulkRun, target, usual: { seconds: index.seconds, url: target.indexUrl } });
        targets.push({ label: target.label, copySeconds: copy.seconds, index });
        if (target.label === 'tuned server' && options.keepDatabase) {
          const started = performance.now();
          await withMigratedPool(target.indexUrl, (pool) => runMetadataStages(pool, createRpcClient({ url: node.url })));
          report(`token and NFT metadata read to the end after the run in ${((performance.now() - started) / 1000).toFixed(1)} s`);
          kept = target;
        }
      } finally {
        await target.close(target === kept);
      }
    }
    return { databaseUrl: kept?.indexUrl ?? '', rows, fetchFloorSeconds: floor.seconds, targets };
  } finally {
    await node.stop();
  }
}

/** What makes `sextant index` write the CPU of each of its statements to `file` (bench/index/statement-cpu.ts). */
function statementCpuEnv(file: string): Record<string, string> {
  const loader = new URL('./statement-cpu.ts', import.meta.url).pathname;
  return { NODE_OPTIONS: `--import tsx --import ${loader}`, STATEMENT_CPU_FILE: file };
}

/** `sextant index` with its bulk load into the target's bulk database, reported beside the usual run. */
async function runBulk(
  report: (line: string) => void,
  run: {
    nodeUrl: string;
    nodePid: number;
    lastBlock: number;
    target: DatabaseTarget;
    rows: RowCounts;
    floorSeconds: number;
    /** Where to write the CPU of each statement, `.bulk-<target>` added to the name. */
    statementsFile: string | undefined;
    /** The usual run beside it, unless `--only bulk`. */
    usual: { seconds: number; url: string } | null;
  },
): Promise<void> {
  const postmaster = await postmasterPid(run.target.bulkUrl);
  const cpu = await cpuSnapshot(run.nodePid, postmaster);
  const statementsFile = run.statementsFile && `${run.statementsFile}.bulk-${run.target.label.replace(' ', '-')}`;
  const bulk = await runSextantIndex({
    nodeUrl: run.nodeUrl,
    lastBlock: run.lastBlock,
    databaseUrl: run.target.bulkUrl,
    env: statementsFile === undefined ? bulkEnv : { ...bulkEnv, ...statementCpuEnv(statementsFile) },
  });
  const cpuSpent = describeCpu(cpu, await cpuSnapshot(run.nodePid, postmaster));
  checkSameRows(await countStoredRows(run.target.bulkUrl), run.rows, `sextant index with its bulk load (${run.target.label})`);
  const share = run.floorSeconds / bulk.seconds;
  const { loadSeconds, switchSeconds } = bulkPhases(bulk.phases, bulk.seconds);
  // The floor's time for the blocks the load phase takes (all but the last BULK_LOAD_DISTANCE), at the floor's pace.
  const loaded = Math.max(0, run.lastBlock + 1 - BULK_LOAD_DISTANCE) / (run.lastBlock + 1);
  const loadShare = (run.floorSeconds * loaded) / loadSeconds;
  const perMillion = (switchSeconds / run.rows.transactions) * 1_000_000;
  report(
    line(
      `sextant index, bulk load, ${run.target.label}`,
      bulk.seconds,
      rowsOf(run.rows),
      [
        `peak RSS ${megabytes(bulk.peakRss)}`,
        `${share.toFixed(2)} of the fetch floor (target >= ${BULK_TARGET_SHARE}: ${share >= BULK_TARGET_SHARE ? 'met' : 'missed'})`,
        ...(run.usual === null ? [] : [`${(run.usual.seconds / bulk.seconds).toFixed(2)}x the usual run's speed`]),
        `load ${loadAverage()}`,
      ].join(', '),
    ),
  );
  report(
    `  load phase ${loadSeconds.toFixed(1)} s: ${loadShare.toFixed(2)} of the floor's time for its ${Math.round(loaded * 100)}% of the blocks (target >= ${BULK_LOAD_PHASE_TARGET_SHARE}: ${loadShare >= BULK_LOAD_PHASE_TARGET_SHARE ? 'met' : 'missed'}); switch ${switchSeconds.toFixed(1)} s (${perMillion.toFixed(1)} s per million transactions); after it ${(bulk.seconds - loadSeconds - switchSeconds).toFixed(1)} s; phases ${bulk.phases.map((p) => `${p.phase ?? 'none'} at ${p.seconds.toFixed(1)} s`).join(', ')}`,
  );
  report(`  ${cpuSpent}`);
  report(`  storage: ${await storageFigures(run.target.bulkUrl)}`);
  report(`  account list checkpoints: ${await checkListCheckpoints(run.target.bulkUrl, run.usual?.url ?? null)}`);
  if (statementsFile !== undefined) report(`  CPU of each statement: ${statementsFile}`);
}

/**
 * The bulk load's checkpoints (numbered at once by its ledger, then by the stage) and the usual run's
 * (by the stage alone) against the lists numbered row by row, each first numbered to the end by the
 * stage, which `sextant index` does not wait for. Which busy lists have checkpoints depends on when the
 * stage scanned them, so the two may number different lists.
 */
async function checkListCheckpoints(bulkUrl: string, usualUrl: string | null): Promise<string> {
  const described: string[] = [];
  const runs: [string, string][] = [['bulk load', bulkUrl], ...(usualUrl === null ? [] : [['usual run', usualUrl] as [string, string]])];
  for (const [run, url] of runs) {
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    try {
      const atExit = await checkpointsScanned(pool);
      await writeBenchListCheckpoints(pool);
      const { lists, unnumbered, wrong } = await checkCheckpoints(pool);
      if (wrong !== 0) throw new Error(`the ${run}'s account list checkpoints: ${wrong} wrong or missing in its ${lists} numbered lists`);
      const { n } = await checkpointDigest(pool);
      described.push(
        `${run} ${n} in ${lists} lists, all right, ${unnumbered} busy lists without any, numbered to block ${atExit ?? 'none'} at the exit`,
      );
    } finally {
      await pool.end();
    }
  }
  return described.join('; ');
}

/**
 * The load phase (from the start to the first sample past it) and the switch (from there to the first
 * sample with no bulk load left), read from the run's samples, each half a second apart.
 */
function bulkPhases(phases: readonly PhaseChange[], total: number): { loadSeconds: number; switchSeconds: number } {
  const loading = phases.findIndex((p) => p.phase === 'loading');
  if (loading < 0) throw new Error(`no bulk load was seen: ${JSON.stringify(phases)}`);
  const switchStart = phases[loading + 1]?.seconds ?? total;
  const end = phases.slice(loading + 1).find((p) => p.phase === null)?.seconds ?? total;
  return { loadSeconds: switchStart, switchSeconds: end - switchStart };
}

function rowsOf(rows: RowCounts): { blocks: number; transactions: number; rows: number } {
  return { blocks: rows.blocks, transactions: rows.transactions, rows: totalRows(rows) };
}

function describeRows(rows: RowCounts): string {
  return `${rows.blocks} blocks, ${rows.transactions} transactions, ${rows.withdrawals} withdrawals, ${rows.tokenTransfers} token transfers, ${rows.internalTransactions} internal transactions (${totalRows(rows)} rows)`;
}

/** One figure: what was timed, how long it took, and its rates. */
function line(what: string, seconds: number, counts: { blocks: number; transactions?: number; rows?: number }, notes: string): string {
  const rate = (n: number | undefined, unit: string) => (n === undefined ? '' : `, ${Math.round(n / seconds)} ${unit}/s`);
  return `${what.padEnd(44)} ${seconds.toFixed(1).padStart(7)} s${rate(counts.blocks, 'blocks')}${rate(counts.transactions, 'tx')}${rate(counts.rows, 'rows')}; ${notes}`;
}

/** The resident memory when the indexer had stored a quarter, half, three quarters and all of the chain. */
function memoryProfile(run: IndexRun, blocks: number): string {
  return [0.25, 0.5, 0.75, 1]
    .map((share) => {
      const sample = run.samples.find((s) => s.blocks >= share * blocks) ?? run.samples.at(-1);
      return sample === undefined ? '' : `${Math.round(share * 100)}% ${megabytes(sample.rss)}`;
    })
    .join(', ');
}

const storedTables: Record<keyof RowCounts, string> = {
  blocks: 'blocks',
  transactions: 'transactions',
  withdrawals: 'withdrawals',
  tokenTransfers: 'token_transfers',
  internalTransactions: 'internal_transactions',
};

async function countStoredRows(url: string): Promise<RowCounts> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const counts = {} as RowCounts;
    for (const [key, table] of Object.entries(storedTables) as [keyof RowCounts, string][]) {
      counts[key] = Number((await client.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`)).rows[0]!.n);
    }
    return counts;
  } finally {
    await client.end();
  }
}

/** The size of the indexed database, and the rows and size of its logs table where it has one. */
async function storageFigures(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const mb = (bytes: string) => `${(Number(bytes) / 1024 / 1024).toFixed(1)} MB`;
    const database = (await client.query<{ size: string }>('SELECT pg_database_size(current_database()) AS size')).rows[0]!.size;
    const hasLogs = (await client.query<{ t: string | null }>("SELECT to_regclass('logs')::text AS t")).rows[0]!.t !== null;
    if (!hasLogs) return `database ${mb(database)} (pg_database_size); no logs table`;
    const logs = (await client.query<{ n: string; size: string }>("SELECT count(*) AS n, pg_total_relation_size('logs') AS size FROM logs"))
      .rows[0]!;
    return `database ${mb(database)} (pg_database_size), logs ${logs.n} rows, ${mb(logs.size)} (pg_total_relation_size)`;
  } finally {
    await client.end();
  }
}

/** A run that wrote other rows than the chain has measured something else: stop rather than report it. */
function checkSameRows(actual: RowCounts, expected: RowCounts, what: string): void {
  if (describeRows(actual) !== describeRows(expected)) {
    throw new Error(`${what} stored ${describeRows(actual)}; the chain has ${describeRows(expected)}`);
  }
}
