import { MultiBar, Presets, type SingleBar } from 'cli-progress';
import type { Logger } from 'pino';
import type { IndexingProgress, StageProgress } from '../model.js';
import type { ProgressMeter } from './progress.js';

export interface ProgressDisplayOptions {
  meter: ProgressMeter;
  logger: Logger;
  /** True on a terminal: bars redrawn every second; else one log line every `intervalMs` while a stage has work left. */
  terminal: boolean;
  intervalMs: number;
}

const stageNames = { catchUp: 'catch-up', traces: 'traces' } as const;
type StageKey = keyof typeof stageNames;

function duration(seconds: number | null): string {
  if (seconds === null) return '?';
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  return h > 0 ? `${h}h${String(m).padStart(2, '0')}m` : m > 0 ? `${m}m${String(s).padStart(2, '0')}s` : `${s}s`;
}

/** One stage as the log line and the bar word it: `1200/5000 blocks, 85.3 blocks/s, 1020.5 tx/s, 45s left`. */
function describeStage(stage: StageProgress): string {
  const transactions = stage.transactionsPerSecond === null ? '' : `, ${stage.transactionsPerSecond} tx/s`;
  return `${stage.done}/${stage.total} blocks, ${stage.blocksPerSecond} blocks/s${transactions}, ${duration(stage.secondsLeft)} left`;
}

/** The log line's figures, as fields too, for log collectors. */
function logLine(logger: Logger, progress: IndexingProgress): void {
  const active = (Object.keys(stageNames) as StageKey[]).filter((key) => progress[key] !== null);
  if (active.length === 0) return;
  logger.info(
    { progress: Object.fromEntries(active.map((key) => [key, progress[key]])) },
    active.map((key) => `${stageNames[key]}: ${describeStage(progress[key]!)}`).join('; '),
  );
}

/** A bar per stage with work left, added when it starts and removed when it is done. */
function terminalBars(): { update(progress: IndexingProgress): void; stop(): void } {
  const multi = new MultiBar(
    { format: '{stage} [{bar}] {percentage}% | {figures}', hideCursor: true, clearOnComplete: false, stream: process.stderr },
    Presets.shades_classic,
  );
  const bars = new Map<StageKey, SingleBar>();
  return {
    update(progress) {
      for (const key of Object.keys(stageNames) as StageKey[]) {
        const stage = progress[key];
        const bar = bars.get(key);
        if (stage === null) {
          if (bar !== undefined) multi.remove(bar);
          bars.delete(key);
          continue;
        }
        const payload = { stage: stageNames[key].padEnd(8), figures: describeStage(stage) };
        if (bar === undefined) bars.set(key, multi.create(stage.total, stage.done, payload));
        else {
          bar.setTotal(stage.total);
          bar.update(stage.done, payload);
        }
      }
    },
    stop: () => multi.stop(),
  };
}

/** Samples the meter on a timer and shows what it measured, until stopped. */
export function startProgressDisplay(options: ProgressDisplayOptions): { stop(): Promise<void> } {
  const { meter, logger, terminal } = options;
  const bars = terminal ? terminalBars() : null;
  let running: Promise<void> | null = null;
  const tick = () => {
    // A slow database does not pile samples up.
    if (running !== null) return;
    running = meter.sample().then(
      (progress) => (bars === null ? logLine(logger, progress) : bars.update(progress)),
      (error: unknown) => logger.debug(`progress not measured: ${(error as Error).message}`),
    );
    void running.finally(() => (running = null));
  };
  const timer = setInterval(tick, terminal ? Math.min(1000, options.intervalMs) : options.intervalMs);
  return {
    async stop() {
      clearInterval(timer);
      await running;
      bars?.stop();
    },
  };
}
