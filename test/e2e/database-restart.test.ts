import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmod, chown, mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import pg from 'pg';
import type { AnvilNode } from '../../src/demo/anvil.js';
import { assertSameSnapshot, snapshotDatabase, unfinishedWork, type DatabaseSnapshot } from '../support/database-snapshot.js';
import { createTestDatabase } from '../support/database.js';
import { runUntilSettled, spawnSextant, type SextantChild } from '../support/sextant-process.js';
import { waitFor } from '../support/wait.js';
import { startScenarioChain } from '../support/scenario-chain.js';

// The database dies under `sextant start` while it indexes and serves: the embedded PostgreSQL's
// postmaster killed, or a PostgreSQL server stopped at once and started again. Sextant, never
// restarted, answers 503 meanwhile, then 200 again within a minute, and the indexer resumes: the
// database afterwards is the one a run without the fault leaves.

const EXTRA_BLOCKS = 300;
const PG_BIN = '/usr/lib/postgresql/15/bin';
const execFileAsync = promisify(execFile);

let anvil: AnvilNode;
let head: bigint;
let reference: DatabaseSnapshot;
const cleanups: (() => Promise<unknown>)[] = [];

const sextantEnv = (port: number): Record<string, string> => ({
  ETHEREUM_JSONRPC_HTTP_URL: anvil.rpcUrl,
  LAST_BLOCK: head.toString(),
  INDEXER_CATCHUP_BLOCKS_BATCH_SIZE: '2',
  INDEXER_CATCHUP_BLOCKS_CONCURRENCY: '1',
  INDEXER_POLL_INTERVAL_MS: '50',
  PORT: String(port),
  HOST: '127.0.0.1',
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Asks the API for a page of blocks every 50 ms, noting each answer's status (0: no answer), until stopped. */
function traffic(port: number): { statuses: { at: number; status: number }[]; stop(): Promise<void> } {
  const statuses: { at: number; status: number }[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const status = await fetch(`http://127.0.0.1:${port}/api/v2/blocks`, { signal: AbortSignal.timeout(10_000) }).then(
        async (response) => (await response.arrayBuffer(), response.status),
        () => 0,
      );
      statuses.push({ at: Date.now(), status });
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  return {
    statuses,
    async stop() {
      running = false;
      await loop;
    },
  };
}

/** A pool for the test's own reads, which outlives the server's deaths. */
function observer(connectionString: string): pg.Pool {
  const pool = new pg.Pool({ connectionString, max: 2 });
  pool.on('error', () => undefined);
  cleanups.push(() => pool.end());
  return pool;
}

const blocksStored = async (pool: pg.Pool): Promise<number> =>
  pool.query<{ n: number }>('SELECT count(*)::int AS n FROM blocks').then(
    ({ rows }) => rows[0]!.n,
    () => 0,
  );

/**
 * Runs `sextant start` against `pool`'s database with traffic on its API, calls `fault` once some
 * but not all blocks are stored, and checks what the API answered, that the process lived on, and
 * that the database ends as the reference.
 */
async function survivesFault(env: Record<string, string>, port: number, pool: pg.Pool, fault: () => Promise<void>): Promise<SextantChild> {
  const sextant = spawnSextant(['start'], env);
  cleanups.push(() => sextant.kill());
  const total = Number(head) + 1;
  await waitFor(
    async () => (await blocksStored(pool)) > total / 4,
    () => `a quarter of the blocks stored:\n${sextant.output()}`,
    {
      timeoutMs: 120_000,
    },
  );
  const load = traffic(port);
  await waitFor(() => load.statuses.some(({ status }) => status === 200), 'a first 200', { timeoutMs: 30_000 });
  assert.ok((await blocksStored(pool)) < total, 'the fault comes before the indexer is done');
  const faultAt = Date.now();
  await fault();
  await waitFor(
    () => load.statuses.some(({ at, status }) => at > faultAt && status === 503),
    () => `a 503 after the fault: ${JSON.stringify(load.statuses.slice(-5))}\n${sextant.output()}`,
    { timeoutMs: 30_000 },
  );
  await waitFor(
    () => load.statuses.some(({ at, status }) => at > faultAt && status === 200),
    () => `a 200 after the fault: ${JSON.stringify(load.statuses.slice(-5))}\n${sextant.output()}`,
    { timeoutMs: 60_000, intervalMs: 100 },
  );
  const backAfterMs = load.statuses.find(({ at, status }) => at > faultAt && status === 200)!.at - faultAt;
  await waitFor(
    async () => (await unfinishedWork(pool, head).catch(() => ['the database'])).length === 0,
    () => `the indexer done:\n${sextant.output()}`,
    { timeoutMs: 180_000, intervalMs: 200 },
  );
  await load.stop();
  const unexpected = load.statuses.filter(({ status }) => status !== 200 && status !== 503);
  assert.deepEqual(unexpected, [], 'only 200s and 503s');
  assert.ok(backAfterMs < 60_000, `200 again ${backAfterMs} ms after the fault`);
  assertSameSnapshot(await snapshotDatabase(pool), reference, 'after the database died');
  assert.equal(await Promise.race([sextant.exited, new Promise((resolve) => setTimeout(() => resolve('running'), 100))]), 'running');
  return sextant;
}

async function stopped(sextant: SextantChild): Promise<void> {
  assert.equal(await sextant.stop(), 0, sextant.output());
}

before(async () => {
  const chain = await startScenarioChain(EXTRA_BLOCKS);
  ({ anvil, head } = chain);
  const db = await createTestDatabase({ migrated: false });
  try {
    const env = { DATABASE_URL: db.url, ETHEREUM_JSONRPC_HTTP_URL: anvil.rpcUrl, LAST_BLOCK: head.toString() };
    await runUntilSettled(env, () => unfinishedWork(db.pool, head));
    reference = await snapshotDatabase(db.pool);
  } finally {
    await db.drop();
  }
});

after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  await anvil?.stop();
});

/** A temporary directory the OS user postgres owns (PostgreSQL refuses to run as root). */
async function postgresOwnedDir(): Promise<{ dir: string; user: { uid: number; gid: number } }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'sextant-restart-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  await chmod(dir, 0o755);
  if (process.getuid?.() !== 0) return { dir, user: { uid: process.getuid!(), gid: process.getgid!() } };
  const [uid, gid] = await Promise.all(['-u', '-g'].map(async (flag) => Number((await execFileAsync('id', [flag, 'postgres'])).stdout)));
  await chown(dir, uid!, gid!);
  return { dir, user: { uid: uid!, gid: gid! } };
}

test('the embedded PostgreSQL killed under traffic is restarted: 503s, then 200s, the same database, no restart of Sextant', async () => {
  const { dir } = await postgresOwnedDir();
  const dataDir = path.join(dir, 'data');
  const port = await freePort();
  const pgdata = path.join(dataDir, 'postgres');
  const pool = observer(`postgresql://postgres@/sextant?host=${encodeURIComponent(pgdata)}&port=5432`);
  const sextant = await survivesFault({ ...sextantEnv(port), SEXTANT_DATA_DIR: dataDir }, port, pool, async () => {
    const postmaster = Number((await readFile(path.join(pgdata, 'postmaster.pid'), 'utf8')).split('\n')[0]);
    process.kill(postmaster, 'SIGKILL');
  });
  assert.match(
    sextant.stdout(),
    /"level":50[^\n]*exited unexpectedly \(exit code \d+\); restarting it/,
    'the death is logged at error level',
  );
  assert.match(sextant.stdout(), /restarted/);
  await stopped(sextant);
});

test('a PostgreSQL server stopped at once and started again under traffic: both the API and the indexer reconnect by themselves', async () => {
  const { dir, user } = await postgresOwnedDir();
  const pgdata = path.join(dir, 'cluster');
  const dbPort = await freePort();
  const run = (command: string, args: string[]) => execFileAsync(path.join(PG_BIN, command), args, { ...user, cwd: dir });
  await run('initdb', ['-D', pgdata, '-U', 'postgres', '--auth=trust', '--no-instructions']);
  const pgCtl = (...args: string[]) =>
    run('pg_ctl', [
      '-D',
      pgdata,
      '-l',
      path.join(dir, 'server.log'),
      '-o',
      `-p ${dbPort} -k ${dir} -c listen_addresses=127.0.0.1`,
      ...args,
    ]);
  await pgCtl('-w', 'start');
  cleanups.push(() => pgCtl('-m', 'immediate', 'stop'));
  const serverUrl = `postgresql://postgres@127.0.0.1:${dbPort}`;
  const admin = new pg.Client({ connectionString: `${serverUrl}/postgres` });
  await admin.connect();
  await admin.query('CREATE DATABASE sextant');
  await admin.end();
  const port = await freePort();
  const pool = observer(`${serverUrl}/sextant`);
  const sextant = await survivesFault({ ...sextantEnv(port), DATABASE_URL: `${serverUrl}/sextant` }, port, pool, async () => {
    await pgCtl('-m', 'immediate', 'stop');
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    await pgCtl('-w', 'start');
  });
  await stopped(sextant);
});
