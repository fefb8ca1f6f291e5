import type { Logger } from 'pino';
import { createDrainSignal } from '../../lib/drain-signal.js';
import { createWakeup } from '../../lib/wakeup.js';
import { createRetry, type Backoff, type Retry } from '../retry.js';

/** A stage beside the block pipeline: tracing, token metadata, NFT metadata, the pending pool. */
export interface BackgroundLoop {
  /** Resolves the next time a step finds nothing to do, or when the loop stops; rejects when it fails. */
  drained(): Promise<void>;
  /** Resolves when the loop is stopped; rejects with the fatal error that ended it. */
  done: Promise<void>;
  stop(): Promise<void>;
}

/** A loop whose rest can be cut short: new blocks were stored, so its work may be there now. */
export interface WakeableLoop extends BackgroundLoop {
  /** Ends the current rest between steps, or the next one. */
  wake(): void;
}

export interface BackgroundLoopOptions {
  logger: Logger;
  pollIntervalMs: number;
  backoff?: Backoff;
  /**
   * Whether the stage must wait for now (asked before each step): a stage that reads the ledger waits
   * while a bulk load of history is under way, since the ledger and its indexes are not built yet.
   */
  heldBack?: () => Promise<boolean>;
}

/**
 * Runs `step` over and over beside the block pipeline until stopped, resting `pollIntervalMs` (or until
 * woken) whenever a step finds nothing to do (it returns false) or the stage is held back. The step runs
 * its work through `retry`, which waits out retryable failures; a fatal error ends the loop.
 */
export function startBackgroundLoop(options: BackgroundLoopOptions, step: (retry: Retry) => Promise<boolean>): WakeableLoop {
  const controller = new AbortController();
  const { signal } = controller;
  const retry = createRetry({ logger: options.logger, backoff: options.backoff, signal });
  const drained = createDrainSignal();
  const rest = createWakeup();
  const run = async () => {
    while (!signal.aborted) {
      const { heldBack } = options;
      if (heldBack === undefined || !(await retry('asking whether the stage must wait', heldBack))) {
        if (await step(retry)) continue;
        drained.fire();
      }
      await rest.wait(options.pollIntervalMs, signal);
    }
  };
  const done = run().catch((error: unknown) => {
    if (!signal.aborted) throw error;
  });
  return {
    drained: () => Promise.race([drained.next(), done]),
    done,
    wake: () => rest.wake(),
    async stop() {
      controller.abort();
      await done.catch(() => undefined);
    },
  };
}
