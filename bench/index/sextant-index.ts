import { spawn } from 'node:child_process';
import { once } from 'node:events';
import pg from 'pg';
import { readMemory } from './process-memory.js';

// The built CLI, as production runs it (`npm run bench*` builds it first).
const cli = new URL('../../dist/cli/main.js', import.meta.url).pathname;
const SAMPLE_INTERVAL_MS = 500;

/** The indexer's resident memory when it had stored `blocks` blocks. */
export interface MemorySample {
  seconds: number;
  blocks: number;
  rss: number;
}

/** When a sample first saw the bulk load in a phase (null: none under way), seconds from the start. */
export interface PhaseChange {
  seconds: number;
  phase: string | null;
}

export interface IndexRun {
  /** From start to exit: migrations, node detection, every block and every trace. */
  seconds: number;
  phases: PhaseChange[];
  /** The process's peak resident memory (VmHWM). */
  peakRss: number;
  samples: MemorySample[];
}

export interface IndexRunOptions {
  nodeUrl: string;
  lastBlock: number;
  databaseUrl: string;
  /** Settings beside the run's own: the bulk load's. */
  env?: Record<string, string>;
}

/**
 * Runs `sextant index` from FIRST_BLOCK 0 to LAST_BLOCK as a child process, as it runs in production,
 * so that its memory is its own: resident memory is sampled from /proc along the run, beside the
 * highest block stored, and the peak read just before it exits. Resolves when it exits with 0.
 */
export async function runSextantIndex(options: IndexRunOptions): Promise<IndexRun> {
  const started = performance.now();
  const child = spawn(process.execPath, [cli, 'index'], {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      ETHEREUM_JSONRPC_HTTP_URL: options.nodeUrl,
      FIRST_BLOCK: '0',
      LAST_BLOCK: String(options.lastBlock),
      LOG_LEVEL: 'warn',
      DATABASE_URL: options.databaseUrl,
      ...options.env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let errors = '';
  child.stderr.on('data', (chunk: Buffer) => (errors = (errors + chunk).slice(-4_000)));
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  const pid = child.pid!;
  const samples: MemorySample[] = [];
  let peakRss = 0;
  const progress = new pg.Pool({ connectionString: options.databaseUrl, max: 1 });
  progress.on('error', () => undefined);
  const highestBlock = async () => {
    try {
      const { rows } = await progress.query<{ n: string | null }>('SELECT max(number)::text AS n FROM blocks WHERE consensus');
      return rows[0]?.n == null ? 0 : Number(rows[0].n) + 1;
    } catch {
      return 0;
    }
  };
  const bulkPhase = async () => {
    try {
      const { rows } = await progress.query<{ phase: string }>('SELECT phase FROM bulk_load');
      return rows[0]?.phase ?? null;
    } catch {
      return null;
    }
  };
  const phases: PhaseChange[] = [];
  let running = true;
  void exited.then(() => (running = false));
  try {
    while (running) {
      const memory = await readMemory(pid);
      if (memory !== null) {
        peakRss = Math.max(peakRss, memory.peak);
        const seconds = (performance.now() - started) / 1000;
        samples.push({ seconds, blocks: await highestBlock(), rss: memory.rss });
        const phase = await bulkPhase();
        if (phase !== (phases.at(-1)?.phase ?? null)) phases.push({ seconds, phase });
      }
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, SAMPLE_INTERVAL_MS))]);
    }
  } finally {
    await progress.end();
  }
  const [code, signal] = await exited;
  if (code !== 0) throw new Error(`sextant index exited with ${code ?? signal}:\n${errors}`);
  return { seconds: (performance.now() - started) / 1000, phases, peakRss, samples };
}
