import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { isRetryable } from '../../errors.js';
import { createDrainSignal } from '../../lib/drain-signal.js';
import { OffchainSourceError } from '../../offchain/fetch-json.js';
import type { Backoff } from '../retry.js';
import type { BackgroundLoop } from './background-loop.js';

export interface ScheduledFetchOptions {
  logger: Logger;
  /** Between two successful fetches. */
  intervalMs: number;
  /** After a failure: a wait growing from initialMs, doubling with each failure in a row, up to maxMs. */
  backoff: Backoff;
  /** Fetches the source and stores what it gave. */
  fetch: () => Promise<void>;
  /** Records a failure for GET /health; the values stored before stay. */
  recordFailure: (message: string) => Promise<void>;
}

/** The wait after the nth failure in a row: between half and all of initialMs × 2^n, capped at maxMs. */
export function failureDelay(backoff: Backoff, failures: number): number {
  const ceiling = Math.min(backoff.maxMs, backoff.initialMs * 2 ** failures);
  return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
}

/**
 * Fetches an outside source now and then every intervalMs, beside the block pipeline, which never waits
 * for it. A failure of the source (or a passing one of the database) is logged and recorded, and the
 * fetch tried again after a backoff; any other error is a bug and ends the loop. `drained` resolves
 * after the next fetch, whether it succeeded or failed.
 */
export function startScheduledFetch(options: ScheduledFetchOptions): BackgroundLoop {
  const controller = new AbortController();
  const { signal } = controller;
  const attempted = createDrainSignal();
  const run = async () => {
    let failures = 0;
    while (!signal.aborted) {
      let waitMs = options.intervalMs;
      try {
        await options.fetch();
        failures = 0;
      } catch (error) {
        if (signal.aborted) break;
        if (!(error instanceof OffchainSourceError) && !isRetryable(error)) throw error;
        const message = (error as Error).message;
        waitMs = failureDelay(options.backoff, failures);
        failures += 1;
        options.logger.warn({ failures }, `${message}; the last values stay served, trying again in ${Math.round(waitMs / 1000)} s`);
        await options
          .recordFailure(message)
          .catch((recording: Error) => options.logger.warn(`cannot record the failure: ${recording.message}`));
      }
      attempted.fire();
      await sleep(waitMs, undefined, { signal }).catch(() => undefined);
    }
  };
  const done = run().catch((error: unknown) => {
    if (!signal.aborted) throw error;
  });
  return {
    drained: () => Promise.race([attempted.next(), done]),
    done,
    async stop() {
      controller.abort();
      await done.catch(() => undefined);
    },
  };
}
