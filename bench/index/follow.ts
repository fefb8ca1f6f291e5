/**
 * `npm run bench:follow -- --scale small|full [--rates 1,5,20] [--seconds S] [--settle S] [--database embedded|tuned]`:
 * how far behind a live chain the indexer stays. The generated chain's node shows its history up to a
 * block, which `sextant index` loads (in bulk when it is long enough, as in production), then produces
 * the rest at each rate in turn (blocks per second, for S seconds each) and announces every block over
 * its websocket's newHeads, as a live node does. For each block, the time from its announcement until
 * its row is stored, and until its internal transactions are, read by polling the database every 10 ms;
 * and the CPU the indexer, the node and PostgreSQL spent meanwhile, in cores.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import pg from 'pg';
import { percentile } from '../api/figures.js';
import { startBenchNode } from '../chain/node-process.js';
import type { RevealStart } from '../chain/reveal.js';
import { chainShape, parseScale } from '../chain/scale.js';
import { cpuSnapshot, postmasterPid, processCpuSeconds } from './cpu.js';
import { createTunedDatabase, dropDatabase, embeddedTarget } from './databases.js';
import { describeMachine, loadAverage } from './machine.js';

const cli = new URL('../../dist/cli/main.js', import.meta.url).pathname;
const POLL_MS = 10;
/** How long the indexer may take, after a rate's last block, to store and trace what it was shown. */
const DRAIN_MS = 30_000;
const TUNED_DATABASE = 'sextant_bench_follow';

const args = process.argv.slice(2);
const option = (name: string, fallback: string) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? args[at + 1]! : fallback;
};
const scale = parseScale(args);
const rates = option('rates', '1,5,20').split(',').map(Number);
const seconds = Number(option('seconds', '60'));
const settleSeconds = Number(option('settle', '60'));
const database = option('database', 'embedded');
if (rates.some((rate) => !(rate > 0)) || !(seconds > 0) || !(settleSeconds >= 0))
  throw new Error('--rates, --seconds and --settle take positive numbers');
if (database !== 'embedded' && database !== 'tuned') throw new Error(`--database takes embedded or tuned, got ${database}`);

const last = chainShape(scale).blocks - 1;
const produced = rates.reduce((sum, rate) => sum + Math.ceil(rate * seconds), 0);
const history = last - produced - 10;
if (history < 1_000) throw new Error(`the ${scale} chain has ${last + 1} blocks: too few for ${produced} blocks produced after a history`);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const report = (line: string) => process.stdout.write(`${line}\n`);

const node = await startBenchNode(scale, undefined, 60_000, history);
const embedded = database === 'embedded' ? await embeddedTarget() : null;
const databaseUrl = embedded?.indexUrl ?? (await createTunedDatabase(TUNED_DATABASE));

const child = spawn(process.execPath, [cli, 'index'], {
  env: {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    ETHEREUM_JSONRPC_HTTP_URL: node.url,
    ETHEREUM_JSONRPC_WS_URL: node.url.replace(/^http/, 'ws'),
    FIRST_BLOCK: '0',
    LOG_LEVEL: 'warn',
    DATABASE_URL: databaseUrl,
  },
  stdio: ['ignore', 'ignore', 'pipe'],
});
let errors = '';
child.stderr.on('data', (chunk: Buffer) => (errors = (errors + chunk).slice(-4_000)));
const exited = once(child, 'exit');
let stopping = false;
void exited.then(() => stopping || report(`sextant index exited:\n${errors}`));

const poller = new pg.Pool({ connectionString: databaseUrl, max: 1 });
poller.on('error', () => undefined);

/** The highest stored block, and the highest below which every stored block is traced (-1: none yet). */
async function heads(): Promise<{ stored: number; traced: number }> {
  try {
    const { rows } = await poller.query<{ stored: string | null; untraced: string | null }>(
      `SELECT (SELECT max(number) FROM blocks WHERE consensus)::text AS stored,
              (SELECT min(number) FROM blocks WHERE consensus AND traced_at IS NULL)::text AS untraced`,
    );
    const stored = rows[0]?.stored == null ? -1 : Number(rows[0].stored);
    return { stored, traced: rows[0]?.untraced == null ? stored : Number(rows[0].untraced) - 1 };
  } catch {
    return { stored: -1, traced: -1 };
  }
}

async function reveal(rate: number): Promise<RevealStart> {
  const response = await fetch(`${node.url}/reveal?rate=${rate}`, { method: 'POST' });
  return (await response.json()) as RevealStart;
}

/** What the three parts have spent so far, in core-seconds. */
async function cpu(postmaster: number): Promise<{ sextant: number; node: number; postgres: number }> {
  const { node: nodeCpu, postgres } = await cpuSnapshot(node.pid, postmaster);
  return { sextant: await processCpuSeconds(child.pid!), node: nodeCpu, postgres };
}

function describeCpu(before: Awaited<ReturnType<typeof cpu>>, after: Awaited<ReturnType<typeof cpu>>, wallSeconds: number): string {
  const cores = (from: number, to: number) => ((to - from) / wallSeconds).toFixed(2);
  return `sextant ${cores(before.sextant, after.sextant)}, node ${cores(before.node, after.node)}, PostgreSQL ${cores(before.postgres, after.postgres)} cores`;
}

function percentiles(lags: number[]): string {
  if (lags.length === 0) return 'none';
  const sorted = [...lags].sort((a, b) => a - b);
  const at = (fraction: number) => percentile(sorted, fraction).toFixed(0);
  return `p50 ${at(0.5)}, p90 ${at(0.9)}, p99 ${at(0.99)}, max ${at(1)} ms`;
}

try {
  report(
    `## follow (${scale}: history 0..${history}, then ${rates.join(', ')} blocks/s for ${seconds} s each, ${database}); ${describeMachine()}`,
  );
  const started = performance.now();
  let caughtUp: number | null = null;
  for (let current = await heads(); current.traced < history; current = await heads()) {
    if (child.exitCode !== null) throw new Error('sextant index exited while catching up');
    if (caughtUp === null && current.stored >= history) caughtUp = (performance.now() - started) / 1000;
    await sleep(500);
  }
  const traced = (performance.now() - started) / 1000;
  report(`history: stored at ${(caughtUp ?? traced).toFixed(1)} s, traced at ${traced.toFixed(1)} s; load ${loadAverage()}`);
  const postmaster = await postmasterPid(databaseUrl);
  const settleFrom = await cpu(postmaster);
  await sleep(settleSeconds * 1000);
  report(`settled ${settleSeconds} s: ${describeCpu(settleFrom, await cpu(postmaster), settleSeconds)}`);

  for (const rate of rates) {
    const before = await cpu(postmaster);
    const start = await reveal(rate);
    const storedAt = new Map<number, number>();
    const tracedAt = new Map<number, number>();
    let seen = { stored: start.base, traced: start.base };
    let end: number | null = null;
    const deadline = start.since + seconds * 1000;
    for (;;) {
      const now = Date.now();
      if (end === null && now >= deadline) end = (await reveal(0)).base;
      if (end !== null && ((seen.stored >= end && seen.traced >= end) || now >= deadline + DRAIN_MS)) break;
      const current = await heads();
      const at = Date.now();
      for (let n = seen.stored + 1; n <= current.stored; n++) storedAt.set(n, at);
      for (let n = seen.traced + 1; n <= current.traced; n++) tracedAt.set(n, at);
      seen = { stored: Math.max(seen.stored, current.stored), traced: Math.max(seen.traced, current.traced) };
      await sleep(POLL_MS);
    }
    const wall = (Date.now() - start.since) / 1000;
    const after = await cpu(postmaster);
    const revealedAt = (n: number) => start.since + ((n - start.base) * 1000) / rate;
    const lags = (at: Map<number, number>) => [...at].filter(([n]) => n > start.base && n <= end!).map(([n, t]) => t - revealedAt(n));
    const count = end! - start.base;
    const missing = (at: Map<number, number>) => count - lags(at).length;
    report(
      `${rate} blocks/s, ${count} blocks (${start.base + 1}..${end}): stored after ${percentiles(lags(storedAt))}` +
        `${missing(storedAt) > 0 ? ` (${missing(storedAt)} not within ${DRAIN_MS / 1000} s)` : ''}; ` +
        `traced after ${percentiles(lags(tracedAt))}${missing(tracedAt) > 0 ? ` (${missing(tracedAt)} not within ${DRAIN_MS / 1000} s)` : ''}; ` +
        `CPU over ${wall.toFixed(1)} s: ${describeCpu(before, after, wall)}; load ${loadAverage()}`,
    );
    await sleep(5_000);
  }
} finally {
  stopping = true;
  child.kill('SIGTERM');
  await Promise.race([exited, sleep(30_000)]);
  await poller.end();
  await node.stop();
  if (embedded !== null) await embedded.close(false);
  else await dropDatabase(TUNED_DATABASE);
}
