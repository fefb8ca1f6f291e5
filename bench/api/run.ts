import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { pino } from 'pino';
import { loadSignatureDatabase } from '../../src/app/signature-database.js';
import { type BenchKeys, benchKeys } from '../chain/keys.js';
import { type BenchScale, chainShapes } from '../chain/scale.js';
import { describeMachine, loadAverage } from '../index/machine.js';
import { megabytes, readMemory } from '../index/process-memory.js';
import { type EndpointId, type KeyKind, endpoints, findKeys, pageSize } from './cases.js';
import { type RunningChild, freePort, startNodeChild, startServe } from './child-process.js';
import type { LoadFigures } from './figures.js';
import { type LoadPlan, loadHttp } from './load.js';
import { fetchBody, findDeepPage } from './pages.js';
import { explain, loadSql, recordQueries } from './sql-floor.js';

export interface ApiBenchOptions {
  scale: BenchScale;
  /** A migrated database holding an indexed chain. */
  databaseUrl: string;
  report: (line: string) => void;
  /** The endpoints (their ids in `cases.ts`) to measure; all when absent. */
  only?: readonly string[];
  /** The concurrencies to load each page at; 1 and 64 when absent. */
  concurrencies?: readonly number[];
  /**
   * False: the pages are measured with the signatures table empty, as on a database the indexer has
   * not yet loaded it into (calls to contracts nobody verified keep their selector); loaded when absent.
   */
  signatures?: boolean;
  /** Flags for the `node` that runs `sextant serve` (V8's heap flags, say); none when absent. */
  serveNodeFlags?: readonly string[];
}

/** Loads the signature database Sextant ships, as the indexer does on its first start, or empties the table. */
async function prepareSignatures(pool: pg.Pool, loaded: boolean): Promise<void> {
  if (loaded) await loadSignatureDatabase(pool, pino({ level: 'silent' }));
  else await pool.query('TRUNCATE signatures, signature_sources');
}

/** One page measured at one concurrency: the API and its two floors. */
export interface ConcurrencyFigures {
  connections: number;
  api: LoadFigures;
  /** The same statements through node-postgres, no HTTP. */
  sql: LoadFigures;
  /** The same JSON from memory through Fastify, no database. */
  memory: LoadFigures;
}

export interface MeasuredPage {
  endpoint: EndpointId;
  key: KeyKind;
  /** Items the key lists in all. */
  items: number;
  page: 'first' | 'deep';
  /** Items before the page. */
  depth: number;
  path: string;
  figures: ConcurrencyFigures[];
  /** EXPLAIN (ANALYZE, BUFFERS) of each statement the page runs. */
  plans: string[];
}

export interface TargetCheck {
  target: string;
  measured: string;
  met: boolean;
}

export interface ApiBenchResult {
  pages: MeasuredPage[];
  serverPeakRssBytes: number;
  targets: TargetCheck[];
}

const targetDepth = 10_000;
const defaultConcurrencies = [1, 64];
/** The API's pool size in `sextant serve`, used for the database floor too. */
const poolSize = 10;

const loadPlans: Record<BenchScale, LoadPlan> = {
  small: { requestsPerConnection: 1, minimumRequests: 50, warmupRequests: 10 },
  full: { requestsPerConnection: 10, minimumRequests: 500, warmupRequests: 100 },
};

const memoryServer = new URL('./memory-server.ts', import.meta.url).pathname;

async function startMemoryFloor(responsesFile: string, readyPath: string): Promise<RunningChild> {
  const port = await freePort();
  return startNodeChild(['--import', 'tsx', memoryServer, responsesFile, String(port)], {}, port, readyPath);
}

interface PageToMeasure {
  endpoint: EndpointId;
  key: KeyKind;
  items: number;
  page: 'first' | 'deep';
  depth: number;
  path: string;
}

async function choosePages(
  pool: pg.Pool,
  serveUrl: string,
  chainKeys: BenchKeys,
  only: readonly string[] | undefined,
  report: (line: string) => void,
): Promise<PageToMeasure[]> {
  const pages: PageToMeasure[] = [];
  for (const endpoint of endpoints.filter((e) => only === undefined || only.includes(e.id))) {
    const keys = await findKeys(pool, endpoint, chainKeys);
    if (keys.length === 0) report(`${endpoint.id} ${endpoint.title}: no data indexed for it, not measured`);
    for (const key of keys) {
      if (key.kind === 'cold' && key.path === keys[0]?.path) {
        report(`${endpoint.id}: every key lists ${key.items} items; no cold key apart from the hot one`);
        continue;
      }
      if (key.kind === 'cold' && endpoint.coldPath !== undefined && key.items <= pageSize) {
        report(`${endpoint.id} cold: the key lists ${key.items} items, not more than a page (the chain is too short)`);
      }
      pages.push({ endpoint: endpoint.id, key: key.kind, items: key.items, page: 'first', depth: 0, path: key.path });
      if (!endpoint.deepPage || key.kind === 'cold') continue;
      const deep =
        endpoint.deepPath === undefined
          ? await findDeepPage(serveUrl, key.path, targetDepth)
          : await endpoint.deepPath(pool, key.path, key.items, targetDepth);
      if (deep.depth === 0) {
        report(`${endpoint.id} hot: the list has ${key.items} items, one page: no deep page`);
        continue;
      }
      if (deep.depth < targetDepth) report(`${endpoint.id} hot: the list has ${key.items} items; the deepest page starts at ${deep.depth}`);
      pages.push({ endpoint: endpoint.id, key: 'hot', items: key.items, page: 'deep', depth: deep.depth, path: deep.path });
    }
  }
  return pages;
}

const fixed = (value: number, digits: number) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');
const figures = (f: LoadFigures) =>
  `${fixed(f.requestsPerSecond, 0).padStart(6)} req/s p50 ${fixed(f.p50Ms, 2).padStart(6)} p99 ${fixed(f.p99Ms, 2).padStart(6)} ms${f.failures > 0 ? ` (${f.failures} failed)` : ''}`;

const pageLabel = (p: PageToMeasure) => `${p.endpoint} ${p.key.padEnd(4)} ${p.page === 'first' ? 'first' : `deep@${p.depth}`}`;

function reportPage(report: (line: string) => void, page: MeasuredPage): void {
  report(`${pageLabel(page)}  ${page.path}  (${page.items} items)`);
  for (const c of page.figures) {
    report(
      `  c=${String(c.connections).padEnd(2)} api ${figures(c.api)} | sql floor ${figures(c.sql)} | memory floor ${figures(c.memory)} | api/sql ${fixed(c.api.requestsPerSecond / c.sql.requestsPerSecond, 2)} api/memory ${fixed(c.api.requestsPerSecond / c.memory.requestsPerSecond, 2)}`,
    );
  }
}

function reportPlans(report: (line: string) => void, page: MeasuredPage): void {
  report(`${pageLabel(page)}  ${page.path}`);
  page.plans.forEach((plan, i) => {
    report(`  statement ${i + 1}:`);
    for (const line of plan.split('\n')) report(`    ${line}`);
  });
}

const atConnections = (page: MeasuredPage, connections: number): ConcurrencyFigures | undefined =>
  page.figures.find((f) => f.connections === connections);

/** The issue's targets, each checked on every page it applies to. */
function checkTargets(pages: MeasuredPage[], serverPeakRssBytes: number): TargetCheck[] {
  const checks: TargetCheck[] = [];
  for (const page of pages) {
    const c1 = atConnections(page, 1)?.api;
    if (c1 !== undefined)
      checks.push({ target: `${pageLabel(page)}: p99 <= 10 ms at c=1`, measured: `${fixed(c1.p99Ms, 2)} ms`, met: c1.p99Ms <= 10 });
    const c64 = atConnections(page, 64);
    if (c64 === undefined) continue;
    const share = c64.api.requestsPerSecond / c64.memory.requestsPerSecond;
    checks.push({
      target: `${pageLabel(page)}: API >= 60% of the memory floor at c=64`,
      measured: `${fixed(share * 100, 0)}%`,
      met: share >= 0.6,
    });
  }
  const first = (endpoint: EndpointId, key: KeyKind) => pages.find((p) => p.endpoint === endpoint && p.key === key && p.page === 'first');
  for (const deep of pages.filter((p) => p.page === 'deep')) {
    const top = first(deep.endpoint, 'hot')!;
    const [deepFigures, topFigures] = [atConnections(deep, 1), atConnections(top, 1)];
    if (deepFigures === undefined || topFigures === undefined) continue;
    const ratio = deepFigures.api.p50Ms / topFigures.api.p50Ms;
    checks.push({
      target: `${deep.endpoint} deep@${deep.depth} <= 1.2 x first page (p50, c=1)`,
      measured: fixed(ratio, 2),
      met: ratio <= 1.2,
    });
  }
  for (const hot of pages.filter(
    (p) => p.key === 'hot' && p.page === 'first' && !endpoints.find((e) => e.id === p.endpoint)?.wholeAnswer,
  )) {
    const cold = first(hot.endpoint, 'cold');
    const [hotFigures, coldFigures] = [atConnections(hot, 1), cold === undefined ? undefined : atConnections(cold, 1)];
    if (hotFigures === undefined || coldFigures === undefined) continue;
    const ratio = hotFigures.api.p50Ms / coldFigures.api.p50Ms;
    checks.push({ target: `${hot.endpoint} hot <= 2 x cold (first page, p50, c=1)`, measured: fixed(ratio, 2), met: ratio <= 2 });
  }
  checks.push({ target: 'API peak RSS <= 200 MB', measured: megabytes(serverPeakRssBytes), met: serverPeakRssBytes <= 200 * 1024 * 1024 });
  return checks;
}

/**
 * Benchmarks the nine endpoints on an indexed database: `sextant serve` as a child process, loaded
 * over loopback with autocannon, beside the database floor and the in-memory JSON floor.
 */
export async function runApiBench(options: ApiBenchOptions): Promise<ApiBenchResult> {
  const { report } = options;
  const plan = loadPlans[options.scale];
  const pool = new pg.Pool({ connectionString: options.databaseUrl, max: poolSize });
  const workDir = await mkdtemp(join(tmpdir(), 'sextant-bench-api-'));
  await prepareSignatures(pool, options.signatures ?? true);
  const serve = await startServe(options.databaseUrl, options.serveNodeFlags ?? []);
  let memory: RunningChild | null = null;
  try {
    // After a bulk load, as autovacuum would before long: the plans below depend on fresh statistics, and
    // the first reads of pages never vacuumed write them back (hint bits), which would be measured.
    await pool.query('VACUUM (ANALYZE)');
    // The cold keys depend on the scale's shape, not on how many of its blocks were indexed.
    const chosen = await choosePages(pool, serve.baseUrl, benchKeys(chainShapes[options.scale]), options.only, report);
    const bodies: Record<string, string> = {};
    for (const page of chosen) bodies[page.path] = (await fetchBody(serve.baseUrl, page.path)).body;
    const responsesFile = join(workDir, 'responses.json');
    await writeFile(responsesFile, JSON.stringify(bodies));
    memory = await startMemoryFloor(responsesFile, chosen[0]!.path);
    const statements = await recordQueries(
      pool,
      chosen.map((p) => p.path),
    );

    report(`API benchmark (${options.scale}) on ${describeMachine()}, load average ${loadAverage()}`);
    report('requests/s and latency per page; c = concurrent connections; ratios of requests/s');
    const pages: MeasuredPage[] = [];
    let peakSoFar = 0;
    for (const page of chosen) {
      const queries = statements.get(page.path)!;
      const measured: ConcurrencyFigures[] = [];
      for (const connections of options.concurrencies ?? defaultConcurrencies) {
        measured.push({
          connections,
          api: await loadHttp(`${serve.baseUrl}${page.path}`, connections, plan),
          sql: await loadSql(pool, queries, connections, plan),
          memory: await loadHttp(`${memory.baseUrl}${page.path}`, connections, plan),
        });
      }
      const result: MeasuredPage = { ...page, figures: measured, plans: await explain(pool, queries) };
      reportPage(report, result);
      pages.push(result);
      // Which pages raise the process's high-water mark: the run's peak RSS is the last of these.
      const peak = (await readMemory(serve.pid))?.peak ?? 0;
      if (peak > peakSoFar) report(`  sextant serve's peak RSS rose to ${megabytes(peak)} on this page`);
      peakSoFar = Math.max(peakSoFar, peak);
    }

    report('Query plans (EXPLAIN ANALYZE, BUFFERS):');
    for (const page of pages) reportPlans(report, page);

    report(`load average at the end: ${loadAverage()}`);
    // The kernel's high-water mark of the process's resident memory (VmHWM), over its whole life.
    const serverPeakRssBytes = (await readMemory(serve.pid))?.peak ?? Number.NaN;
    const targets = checkTargets(pages, serverPeakRssBytes);
    report(`sextant serve peak RSS: ${megabytes(serverPeakRssBytes)}`);
    report('Targets:');
    for (const t of targets) report(`  ${t.met ? 'met   ' : 'MISSED'} ${t.target}: ${t.measured}`);
    return { pages, serverPeakRssBytes, targets };
  } finally {
    await memory?.stop();
    await serve.stop();
    await pool.end();
    await rm(workDir, { recursive: true, force: true });
  }
}
