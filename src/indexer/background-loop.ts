import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { createDrainSignal } from './drain-signal.js';
import { retryUntilDone, type Backoff } from './retry.js';

export interface BackgroundLoop {
  /** Resolves the next time a step finds nothing to do (or when the loop ends). */
  drained(): Promise<void>;
  /** Settles when the loop ends: on stop(), or on a fault. */
  done: Promise<void>;
  stop(): Promise<void>;
}

/** Runs a task until it succeeds, logging each failure, backing off between attempts; gives up only on stop. */
export type Retry = <T>(what: string, task: () => Promise<T>) => Promise<T>;

const defaultBackoff: Backoff = { initialMs: 250, maxMs: 15_000 };

/**
 * Runs `step` over and over beside the block pipeline until stopped, resting `pollIntervalMs` whenever
 * a step finds nothing to do (it returns false).
 */
export function startBackgroundLoop(
  options: { logger: Logger; pollIntervalMs: number; backoff?: Backoff },
  step: (retry: Retry) => Promise<boolean>,
): BackgroundLoop {
  const controller = new AbortController();
  const { signal } = controller;
  const retry: Retry = (what, task) =>
    retryUntilDone(task, {
      backoff: options.backoff ?? defaultBackoff,
      signal,
      onFailure: (error, attempt) => options.logger.warn({ attempt }, `${what}: ${(error as Error).message}`),
    });
  const drained = createDrainSignal();
  const run = async () => {
    while (!signal.aborted) {
      if (await step(retry)) continue;
      drained.fire();
      await sleep(options.pollIntervalMs, undefined, { signal }).catch(() => undefined);
    }
  };
  const done = run()
    .catch((error: unknown) => {
      if (!signal.aborted) throw error;
    })
    .finally(drained.fire);
  return {
    drained: drained.next,
    done,
    async stop() {
      controller.abort();
      await done.catch(() => undefined);
    },
  };
}
