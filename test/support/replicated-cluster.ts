import { execFile } from 'node:child_process';
import { appendFileSync, chmodSync, chownSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { waitFor } from './wait.js';

const execFileAsync = promisify(execFile);

/**
 * The newest PostgreSQL installed the Debian way (/usr/lib/postgresql/<version>/bin), as .ci/run
 * picks the newest cluster it installed.
 */
function binDir(): string {
  const root = '/usr/lib/postgresql';
  const versions = readdirSync(root).sort((a, b) => Number(a) - Number(b));
  if (versions.length === 0) throw new Error(`no PostgreSQL under ${root}; install the postgresql package`);
  return join(root, versions.at(-1)!, 'bin');
}

/** PostgreSQL refuses to run as root: root runs it as the OS user postgres the Debian package creates. */
async function serverUser(): Promise<{ uid: number; gid: number } | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const [uid, gid] = await Promise.all([execFileAsync('id', ['-u', 'postgres']), execFileAsync('id', ['-g', 'postgres'])]);
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A throwaway primary and its streaming replica, both on loopback ports of their own, in one temp dir. */
export interface ReplicatedCluster {
  /** postgresql:// URLs of database `sextant` on each. */
  primaryUrl: string;
  replicaUrl: string;
  /** Resolves once the replica has replayed everything the primary has written so far. */
  caughtUp(): Promise<void>;
  /** Stops both servers and removes the temp dir; safe to call on a cluster half started. */
  destroy(): Promise<void>;
}

export async function startReplicatedCluster(): Promise<ReplicatedCluster> {
  const bin = binDir();
  const user = await serverUser();
  const dir = mkdtempSync(join(tmpdir(), 'sextant-replica-'));
  chmodSync(dir, 0o755);
  if (user) chownSync(dir, user.uid, user.gid);
  const run = (tool: string, args: string[]) =>
    execFileAsync(join(bin, tool), args, { cwd: dir, timeout: 180_000, ...(user ?? {}) }).catch((error: Error & { stderr?: string }) => {
      throw new Error(`${tool} ${args.join(' ')} failed: ${error.message}\n${error.stderr ?? ''}`);
    });
  const started: string[] = [];
  const destroy = async () => {
    for (const data of started.reverse()) await run('pg_ctl', ['-D', data, '-m', 'immediate', 'stop']).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  };
  const [primaryPort, replicaPort] = [await freePort(), await freePort()];
  try {
    const primary = join(dir, 'primary');
    const replica = join(dir, 'replica');
    const settings = (port: number) =>
      [`port = ${port}`, "listen_addresses = '127.0.0.1'", `unix_socket_directories = '${dir}'`, 'fsync = off', ''].join('\n');
    await run('initdb', ['-D', primary, '-U', 'postgres', '--auth=trust', '--no-sync']);
    appendFileSync(primary + '/postgresql.conf', settings(primaryPort) + 'wal_level = replica\nmax_wal_senders = 4\n');
    appendFileSync(primary + '/pg_hba.conf', 'host replication all 127.0.0.1/32 trust\nhost all all 127.0.0.1/32 trust\n');
    await run('pg_ctl', ['-D', primary, '-l', join(dir, 'primary.log'), '-w', '-t', '120', 'start']);
    started.push(primary);
    // Created before the copy, so that the replica has it from the start.
    const admin = new pg.Client({ connectionString: `postgresql://postgres@127.0.0.1:${primaryPort}/postgres` });
    await admin.connect();
    await admin.query('CREATE DATABASE sextant');
    await admin.end();

    mkdirSync(replica, { mode: 0o700 });
    if (user) chownSync(replica, user.uid, user.gid);
    await run('pg_basebackup', [
      '-h',
      '127.0.0.1',
      '-p',
      String(primaryPort),
      '-U',
      'postgres',
      '-D',
      replica,
      '-R',
      '-X',
      'stream',
      '-c',
      'fast',
    ]);
    // The copy carries the primary's settings; the later lines win.
    appendFileSync(replica + '/postgresql.conf', settings(replicaPort) + 'hot_standby = on\n');
    await run('pg_ctl', ['-D', replica, '-l', join(dir, 'replica.log'), '-w', '-t', '120', 'start']);
    started.push(replica);
  } catch (error) {
    await destroy();
    throw error;
  }
  const primaryUrl = `postgresql://postgres@127.0.0.1:${primaryPort}/sextant`;
  const replicaUrl = `postgresql://postgres@127.0.0.1:${replicaPort}/sextant`;
  return {
    primaryUrl,
    replicaUrl,
    async caughtUp() {
      const primary = new pg.Client({ connectionString: primaryUrl });
      const replica = new pg.Client({ connectionString: replicaUrl });
      try {
        await Promise.all([primary.connect(), replica.connect()]);
        const { rows } = await primary.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn');
        const target = rows[0]!.lsn;
        await waitFor(
          async () => (await replica.query<{ ok: boolean }>('SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS ok', [target])).rows[0]!.ok,
          `the replica replayed the primary's WAL up to ${target}`,
          { timeoutMs: 60_000, intervalMs: 50 },
        );
      } finally {
        await Promise.all([primary.end(), replica.end()]);
      }
    },
    destroy,
  };
}
