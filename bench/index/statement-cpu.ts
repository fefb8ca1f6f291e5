/**
 * Loaded into `sextant index` by `npm run bench:index -- --statements FILE` (node --import): the CPU
 * each statement cost its PostgreSQL backend, read from /proc/<backend pid>/stat before and after it
 * (each connection runs one statement at a time), summed by the statement's first 100 characters and
 * written to STATEMENT_CPU_FILE when the process exits, largest first. Ticks are of 10 ms: a statement's
 * own figure is coarse, a sum over hundreds of them is not.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import pg from 'pg';
import { TICKS_PER_SECOND, parseProcessStat } from './cpu.js';

/** Read as each statement starts and ends, so at once: cpu.ts reads the same file asynchronously. */
function backendTicks(pid: number): number {
  try {
    return parseProcessStat(readFileSync(`/proc/${pid}/stat`, 'utf8')).own;
  } catch {
    return 0;
  }
}

const totals = new Map<string, { calls: number; ticks: number }>();
const query = pg.Client.prototype.query as (this: pg.Client, ...args: any[]) => any;
(pg.Client.prototype as any).query = function (this: pg.Client & { processID: number }, ...args: any[]) {
  const text: string = typeof args[0] === 'string' ? args[0] : (args[0]?.text ?? '');
  const key = text.replace(/\s+/g, ' ').trim().slice(0, 100);
  const pid = this.processID;
  const before = backendTicks(pid);
  const done = () => {
    const total = totals.get(key) ?? { calls: 0, ticks: 0 };
    total.calls++;
    total.ticks += backendTicks(pid) - before;
    totals.set(key, total);
  };
  const result = query.apply(this, args);
  if (typeof result?.then === 'function') return result.finally(done);
  // A COPY stream: done when PostgreSQL has taken all of it.
  if (typeof result?.on === 'function') result.on('finish', done);
  return result;
};

process.on('exit', () => {
  const lines = [...totals]
    .sort(([, a], [, b]) => b.ticks - a.ticks)
    .map(([key, t]) => `${(t.ticks / TICKS_PER_SECOND).toFixed(2).padStart(8)} s ${String(t.calls).padStart(7)}x  ${key}`);
  writeFileSync(process.env.STATEMENT_CPU_FILE!, `${lines.join('\n')}\n`);
});
