import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';

export interface Backoff {
  initialMs: number;
  maxMs: number;
}

/** Exponential backoff with full jitter: a random wait up to initial × 2^attempt, capped. */
export function backoffDelay(backoff: Backoff, attempt: number): number {
  const ceiling = Math.min(backoff.maxMs, backoff.initialMs * 2 ** attempt);
  return Math.round(Math.random() * ceiling);
}

/**
 * Runs a task until it succeeds or the signal aborts, waiting with backoff between failures.
 * The indexer never gives up on a block: a node that is down pauses indexing, it does not end it.
 */
export async function retryUntilDone<T>(
  task: () => Promise<T>,
  options: {
    backoff: Backoff;
    signal: AbortSignal;
    onFailure: (error: unknown, attempt: number) => void;
    /** Errors that retrying cannot mend, passed straight to the caller. */
    isFatal?: (error: unknown) => boolean;
  },
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    options.signal.throwIfAborted();
    try {
      return await task();
    } catch (error) {
      if (options.signal.aborted || options.isFatal?.(error)) throw error;
      options.onFailure(error, attempt);
      await sleep(backoffDelay(options.backoff, attempt), undefined, { signal: options.signal });
    }
  }
}

/** retryUntilDone for a background stage: each failure is logged as a warning naming what failed. */
export function loggedRetry(logger: Logger, backoff: Backoff, signal: AbortSignal) {
  return <T>(what: string, task: () => Promise<T>): Promise<T> =>
    retryUntilDone(task, {
      backoff,
      signal,
      onFailure: (error, attempt) => logger.warn({ attempt }, `${what}: ${(error as Error).message}`),
    });
}
