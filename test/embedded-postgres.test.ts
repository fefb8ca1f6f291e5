import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { ConfigError } from '../src/errors.js';
import { bufferCacheMegabytes, startEmbeddedPostgres } from '../src/app/embedded-postgres.js';
import { waitFor } from './support/wait.js';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));
const ownerScript = fileURLToPath(new URL('support/embedded-postgres-owner.ts', import.meta.url));
const ownerNote = 'written by the owner process';
const timeout = 60_000;

type OwnerReport = { ready: true } | { error: { name: string; message: string } };

/** Runs `body` with a fresh data directory under a temporary directory that the OS user postgres can enter. */
async function withDataDir(body: (dataDir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), 'sextant-embedded-'));
  await chmod(dir, 0o755);
  const dataDir = path.join(dir, 'data');
  try {
    await body(dataDir);
    assert.deepEqual(await processesOf(dataDir), [], 'a process of the embedded server is left running');
  } finally {
    for (const pid of await processesOf(dataDir)) process.kill(pid, 'SIGKILL');
    await rm(dir, { recursive: true, force: true });
  }
}

/** Live processes with an argument inside dataDir: postmasters (-D) and their supervisors. */
async function processesOf(dataDir: string): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const args = await readFile(`/proc/${entry}/cmdline`, 'utf8').then(
      (text) => text.split('\0'),
      () => [],
    );
    if (args.some((arg) => arg.startsWith(`${dataDir}/`))) pids.push(Number(entry));
  }
  return pids;
}

/**
 * One connection, closed before this returns: a pool's end() resolves before its connections have
 * closed, and a server stopped in between terminates one that then fails with no listener.
 */
async function query(connectionString: string, sql: string): Promise<unknown[]> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}

function postmasterPidFile(dataDir: string): string {
  return path.join(dataDir, 'postgres', 'postmaster.pid');
}

/** Another Sextant process owning dataDir (see support/embedded-postgres-owner.ts). */
function spawnOwner(dataDir: string, user?: { uid: number; gid: number }): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', ownerScript, dataDir], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'inherit'],
    ...user,
  });
}

async function reportOf(owner: ChildProcess): Promise<OwnerReport> {
  assert.ok(owner.stdout);
  for await (const line of createInterface({ input: owner.stdout })) return JSON.parse(line) as OwnerReport;
  assert.fail('the owner process exited without a report');
}

async function startOwner(dataDir: string): Promise<ChildProcess> {
  const owner = spawnOwner(dataDir);
  assert.deepEqual(await reportOf(owner), { ready: true });
  return owner;
}

async function kill(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  const exited = once(child, 'exit');
  child.kill(signal);
  await exited;
}

test('first start creates the sextant database, served on the Unix socket only, with its buffer cache', { timeout }, () =>
  withDataDir(async (dataDir) => {
    const server = await startEmbeddedPostgres({ dataDir });
    try {
      const rows = await query(
        server.connectionString,
        `SELECT current_database() AS database, current_setting('listen_addresses') AS tcp,
                (SELECT setting::bigint * 8192 / 1048576 FROM pg_settings WHERE name = 'shared_buffers')::int AS cache_mb`,
      );
      assert.deepEqual(rows, [{ database: 'sextant', tcp: '', cache_mb: bufferCacheMegabytes() }]);
      await assert.rejects(startEmbeddedPostgres({ dataDir }), (error: Error) => {
        assert.ok(error instanceof ConfigError, `not a ConfigError: ${String(error)}`);
        assert.match(error.message, /is in use by another Sextant process/);
        return true;
      });
    } finally {
      await server.stop();
    }
    assert.equal(await exists(postmasterPidFile(dataDir)), false, 'stop() is a clean shutdown');
  }),
);

test('the buffer cache is an eighth of the memory, between 128 MB and 2 GB', () => {
  const gib = 2 ** 30;
  assert.equal(bufferCacheMegabytes(0.5 * gib), 128);
  assert.equal(bufferCacheMegabytes(4 * gib), 512);
  assert.equal(bufferCacheMegabytes(8 * gib), 1024);
  assert.equal(bufferCacheMegabytes(64 * gib), 2048);
});

test('a restart on the same data directory finds the data written before', { timeout }, () =>
  withDataDir(async (dataDir) => {
    const first = await startEmbeddedPostgres({ dataDir });
    try {
      await query(first.connectionString, "CREATE TABLE marks (note text); INSERT INTO marks VALUES ('before the restart')");
    } finally {
      await first.stop();
    }
    const second = await startEmbeddedPostgres({ dataDir });
    try {
      assert.deepEqual(await query(second.connectionString, 'SELECT note FROM marks'), [{ note: 'before the restart' }]);
    } finally {
      await second.stop();
    }
  }),
);

test('after a kill -9 of the owning process, the next start finds its data', { timeout }, () =>
  withDataDir(async (dataDir) => {
    const owner = await startOwner(dataDir);
    await kill(owner, 'SIGKILL');
    const server = await startEmbeddedPostgres({ dataDir });
    try {
      assert.deepEqual(await query(server.connectionString, 'SELECT note FROM marks'), [{ note: ownerNote }]);
    } finally {
      await server.stop();
    }
  }),
);

test('a server orphaned by a kill -9 of its owner and supervisor is stopped and replaced', { timeout }, () =>
  withDataDir(async (dataDir) => {
    const owner = await startOwner(dataDir);
    const orphan = Number((await readFile(postmasterPidFile(dataDir), 'utf8')).split('\n')[0]);
    const supervisors = (await processesOf(dataDir)).filter((pid) => pid !== orphan && pid !== owner.pid);
    assert.notEqual(supervisors.length, 0, 'the server runs under a supervisor');
    for (const pid of supervisors) process.kill(pid, 'SIGKILL');
    await kill(owner, 'SIGKILL');
    // A killed process stays listed until the kernel has torn it down.
    await waitFor(async () => (await processesOf(dataDir)).every((pid) => !supervisors.includes(pid)), 'the supervisors are gone');
    assert.deepEqual(await processesOf(dataDir), [orphan], 'the server runs on as an orphan');

    const server = await startEmbeddedPostgres({ dataDir });
    try {
      const running = await processesOf(dataDir);
      assert.equal(running.includes(orphan), false, `the orphan ${orphan} is stopped; running: ${running.join(', ')}`);
      assert.deepEqual(await query(server.connectionString, 'SELECT note FROM marks'), [{ note: ownerNote }]);
    } finally {
      await server.stop();
    }
  }),
);

test('a second start on a data directory in use by another process is refused', { timeout }, () =>
  withDataDir(async (dataDir) => {
    const owner = await startOwner(dataDir);
    try {
      await assert.rejects(startEmbeddedPostgres({ dataDir }), (error: Error) => {
        assert.ok(error instanceof ConfigError, `not a ConfigError: ${String(error)}`);
        assert.equal(
          error.message,
          `data directory ${dataDir} is in use by another Sextant process (pid ${owner.pid}): stop it first, or choose another with SEXTANT_DATA_DIR or --data-dir`,
        );
        return true;
      });
    } finally {
      await kill(owner, 'SIGTERM');
    }
    await waitFor(async () => (await processesOf(dataDir)).length === 0, 'the server of the terminated owner stops');
    assert.equal(await exists(postmasterPidFile(dataDir)), false, 'the server of the terminated owner shut down cleanly');
  }),
);

test('an unwritable data directory is refused with a one-line message', { timeout }, () =>
  withDataDir(async (dataDir) => {
    await mkdir(dataDir);
    await chmod(dataDir, 0o555);
    // Root may write anywhere, so as root the attempt runs as an unprivileged user.
    const user = process.getuid?.() === 0 ? { uid: osId('-u', 'nobody'), gid: osId('-g', 'nobody') } : undefined;
    for (const candidate of [dataDir, path.join(dataDir, 'inner')]) {
      const owner = spawnOwner(candidate, user);
      const exited = once(owner, 'exit');
      const report = await reportOf(owner);
      await exited;
      assert.deepEqual(report, {
        error: {
          name: 'ConfigError',
          message: `data directory ${candidate} is not writable: choose another with SEXTANT_DATA_DIR or --data-dir`,
        },
      });
    }
  }),
);

function osId(flag: '-u' | '-g', user: string): number {
  return Number(execFileSync('id', [flag, user], { encoding: 'utf8' }).trim());
}

test('a data directory too long a path for the Unix socket is refused with a one-line message', { timeout }, () =>
  withDataDir(async (dataDir) => {
    const deep = path.join(dataDir, 'x'.repeat(100));
    await assert.rejects(startEmbeddedPostgres({ dataDir: deep }), (error: Error) => {
      assert.ok(error instanceof ConfigError, `not a ConfigError: ${String(error)}`);
      assert.match(error.message, /^data directory .* is too long a path for PostgreSQL's Unix socket \(\d+ bytes, at most 107\)/);
      assert.doesNotMatch(error.message, /\n/);
      return true;
    });
    assert.equal(await exists(deep), false);
  }),
);
