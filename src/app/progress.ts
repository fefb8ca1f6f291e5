import type { Pool } from 'pg';
import type { IndexerStatus, IndexingProgress, StageProgress } from '../model.js';
import { readIndexingProgress } from '../store/read/stats.js';

/** What the meter reads: the indexer's counts, and the trace stage's (null when traces are not fetched). */
export interface ProgressSources {
  pool: Pool;
  status: IndexerStatus;
  tracedBlocks: (() => number) | null;
  firstBlock: bigint;
}

interface Sample {
  at: number;
  blocks: number;
  transactions: number;
  traced: number;
}

/** Rates are measured over the samples of this last span: long enough to smooth batches out, short enough to follow a change of pace. */
const WINDOW_MS = 15_000;

const perSecond = (from: Sample, to: Sample, count: (sample: Sample) => number): number =>
  to.at > from.at ? ((count(to) - count(from)) * 1000) / (to.at - from.at) : 0;

function stage(done: bigint, total: bigint, blocksPerSecond: number, transactionsPerSecond: number | null): StageProgress {
  const left = Number(total - done);
  return {
    done: Number(done),
    total: Number(total),
    blocksPerSecond: round(blocksPerSecond),
    transactionsPerSecond: transactionsPerSecond === null ? null : round(transactionsPerSecond),
    secondsLeft: blocksPerSecond > 0 ? Math.ceil(left / blocksPerSecond) : null,
  };
}

const round = (value: number): number => Math.round(value * 10) / 10;

/**
 * The catch-up's and the trace stage's progress, measured each time `sample` is called: blocks done
 * of the range as the indexing status counts them (blocks indexed of the first block to the node's
 * head; blocks traced of those indexed), and the pace over the last seconds. `progress` is the one
 * object the display and GET /health both read, so that they show the same figures.
 */
export class ProgressMeter {
  readonly progress: IndexingProgress = { catchUp: null, traces: null };
  private readonly samples: Sample[] = [];

  constructor(private readonly sources: ProgressSources) {}

  async sample(now = Date.now()): Promise<IndexingProgress> {
    const { pool, status, tracedBlocks, firstBlock } = this.sources;
    const index = await readIndexingProgress(pool, tracedBlocks !== null);
    const latest: Sample = {
      at: now,
      blocks: status.blocksIndexed,
      transactions: status.transactionsIndexed,
      traced: tracedBlocks?.() ?? 0,
    };
    this.samples.push(latest);
    while (this.samples.length > 2 && this.samples[0]!.at < now - WINDOW_MS) this.samples.shift();
    const first = this.samples[0]!;

    const catchingUp = status.phase === 'starting' || status.phase === 'backfilling';
    const range = status.head === null ? 0n : status.head - firstBlock + 1n;
    this.progress.catchUp =
      catchingUp && range > 0n
        ? stage(
            index.blocks < range ? index.blocks : range,
            range,
            perSecond(first, latest, (s) => s.blocks),
            perSecond(first, latest, (s) => s.transactions),
          )
        : null;
    const untraced = index.untraced ?? 0n;
    this.progress.traces =
      untraced > 0n
        ? stage(
            index.blocks - untraced,
            index.blocks,
            perSecond(first, latest, (s) => s.traced),
            null,
          )
        : null;
    return this.progress;
  }
}
