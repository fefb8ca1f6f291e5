import { readdir, readFile } from 'node:fs/promises';
import pg from 'pg';

/** Clock ticks per second of /proc's CPU times (USER_HZ, 100 on Linux). */
export const TICKS_PER_SECOND = 100;

interface ProcessTimes {
  pid: number;
  parent: number;
  command: string;
  /** utime + stime: the process's own CPU. */
  own: number;
  /** cutime + cstime: its children's, once they exited and were waited for. */
  children: number;
}

async function processTimes(pid: number | 'self'): Promise<ProcessTimes | null> {
  let stat: string;
  try {
    stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  return parseProcessStat(stat);
}

/** The CPU seconds a running process has spent so far (0 once it is gone). */
export async function processCpuSeconds(pid: number): Promise<number> {
  return ((await processTimes(pid))?.own ?? 0) / TICKS_PER_SECOND;
}

/** A process's times from the text of its /proc/<pid>/stat. */
export function parseProcessStat(stat: string): ProcessTimes {
  // The command is in parentheses and may hold spaces: the fields after it are split on the last ')'.
  const close = stat.lastIndexOf(')');
  const command = stat.slice(stat.indexOf('(') + 1, close);
  const fields = stat.slice(close + 2).split(' ');
  const number = (field: number) => Number(fields[field - 3]);
  return {
    pid: Number(stat.slice(0, stat.indexOf(' '))),
    parent: number(4),
    command,
    own: number(14) + number(15),
    children: number(16) + number(17),
  };
}

/** CPU seconds spent so far by the three parts of an indexing run. */
export interface CpuSnapshot {
  /** This process's children that have exited: `sextant index`, run as a child. */
  exitedChildren: number;
  node: number;
  /** The PostgreSQL cluster's processes, those already exited included (through their postmaster's children's times). */
  postgres: number;
}

/**
 * The postmaster of the cluster `url` is on (the checkpointer's parent), so that only its processes
 * are counted: another cluster on the machine (another job's) is not the run's. The machine's own
 * server may serve other databases too, whose backends then count.
 */
export async function postmasterPid(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE backend_type = 'checkpointer'");
    const checkpointer = rows[0] === undefined ? null : await processTimes(rows[0].pid);
    if (checkpointer === null) throw new Error(`no checkpointer found on ${url}`);
    return checkpointer.parent;
  } finally {
    await client.end();
  }
}

export async function cpuSnapshot(nodePid: number, postmaster: number): Promise<CpuSnapshot> {
  const self = await processTimes('self');
  const node = await processTimes(nodePid);
  const all = await Promise.all((await readdir('/proc')).filter((name) => /^\d+$/.test(name)).map((name) => processTimes(Number(name))));
  // The postmaster's children's times hold its backends that ended.
  const ticks = all.reduce(
    (sum, p) => sum + (p === null ? 0 : p.pid === postmaster ? p.own + p.children : p.parent === postmaster ? p.own : 0),
    0,
  );
  return {
    exitedChildren: (self?.children ?? 0) / TICKS_PER_SECOND,
    node: (node?.own ?? 0) / TICKS_PER_SECOND,
    postgres: ticks / TICKS_PER_SECOND,
  };
}

/** What each part spent between two snapshots, as text. */
export function describeCpu(before: CpuSnapshot, after: CpuSnapshot): string {
  const sextant = after.exitedChildren - before.exitedChildren;
  const node = after.node - before.node;
  const postgres = after.postgres - before.postgres;
  const total = sextant + node + postgres;
  const part = (name: string, seconds: number) => `${name} ${seconds.toFixed(1)} s (${Math.round((seconds / total) * 100)}%)`;
  return `CPU: ${part('sextant', sextant)}, ${part('node', node)}, ${part('PostgreSQL', postgres)}; ${total.toFixed(1)} core-seconds`;
}

/** CPU seconds spent so far by this process (which runs the floors) and by the node. */
export async function floorCpuSnapshot(nodePid: number): Promise<{ self: number; node: number }> {
  const [self, node] = [await processTimes('self'), await processTimes(nodePid)];
  return { self: (self?.own ?? 0) / TICKS_PER_SECOND, node: (node?.own ?? 0) / TICKS_PER_SECOND };
}

/** What the fetch-and-decode floor and the node spent between two snapshots, as text. */
export function describeFloorCpu(before: { self: number; node: number }, after: { self: number; node: number }): string {
  const [decode, node] = [after.self - before.self, after.node - before.node];
  return `CPU: fetch and decode ${decode.toFixed(1)} s, node ${node.toFixed(1)} s; ${(decode + node).toFixed(1)} core-seconds`;
}
