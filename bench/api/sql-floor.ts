import type pg from 'pg';
import { apiStatement } from '../../src/api/prepared-statements.js';
import { buildApi } from '../../src/api/server.js';
import type { Db } from '../../src/store/read/sql.js';
import { type LoadFigures, figuresFromLatencies } from './figures.js';
import type { LoadPlan } from './load.js';

/** One statement as the store sent it: its text and parameters. */
export interface RecordedQuery {
  text: string;
  values: unknown[];
}

/**
 * The statements the API runs to answer each URL, recorded from the real routes (in this process, on
 * `pool`) in the order they ran.
 */
export async function recordQueries(pool: pg.Pool, paths: string[]): Promise<Map<string, RecordedQuery[]>> {
  let current: RecordedQuery[] = [];
  const recording: Db = {
    query: (text, values) => {
      current.push({ text, values: values ?? [] });
      return pool.query(text, values);
    },
  };
  const app = await buildApi({ pool: recording, logger: false });
  const recorded = new Map<string, RecordedQuery[]>();
  try {
    for (const path of paths) {
      current = [];
      const response = await app.inject({ method: 'GET', url: path });
      if (response.statusCode !== 200) throw new Error(`GET ${path} answered ${response.statusCode}: ${response.body.slice(0, 200)}`);
      recorded.set(path, current);
    }
  } finally {
    await app.close();
  }
  return recorded;
}

/** Runs one request's statements one after another, in the order the route ran them, prepared as the API prepares them. */
async function replay(pool: pg.Pool, queries: RecordedQuery[]): Promise<void> {
  for (const { text, values } of queries) await pool.query(apiStatement(text, values, true));
}

async function runWorkers(
  pool: pg.Pool,
  queries: RecordedQuery[],
  connections: number,
  total: number,
  latencies: number[] | null,
): Promise<void> {
  let started = 0;
  const worker = async () => {
    while (started < total) {
      started += 1;
      const t0 = performance.now();
      await replay(pool, queries);
      latencies?.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: connections }, worker));
}

/** The database floor: the same statements with the same parameters through node-postgres, no HTTP. */
export async function loadSql(pool: pg.Pool, queries: RecordedQuery[], connections: number, plan: LoadPlan): Promise<LoadFigures> {
  await runWorkers(pool, queries, connections, Math.max(plan.warmupRequests, connections), null);
  const total = Math.max(plan.minimumRequests, plan.requestsPerConnection * connections);
  const latencies: number[] = [];
  const started = performance.now();
  await runWorkers(pool, queries, connections, total, latencies);
  return figuresFromLatencies(latencies, performance.now() - started, 0);
}

/** EXPLAIN (ANALYZE, BUFFERS) of each statement, with its parameters. */
export async function explain(pool: pg.Pool, queries: RecordedQuery[]): Promise<string[]> {
  const plans: string[] = [];
  for (const { text, values } of queries) {
    const { rows } = await pool.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${text}`, values);
    plans.push(rows.map((r) => r['QUERY PLAN']).join('\n'));
  }
  return plans;
}
