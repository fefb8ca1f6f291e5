import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { failureSource, isRetryable, type FailureSource } from '../errors.js';

/** Exponential backoff with full jitter: a random wait up to initialMs × 2^attempt, capped at maxMs. */
export interface Backoff {
  initialMs: number;
  maxMs: number;
}

/** The backoff of the indexer and of every stage, unless their options set another (as the tests do). */
const defaultBackoff: Backoff = { initialMs: 250, maxMs: 15_000 };

function backoffDelay(backoff: Backoff, attempt: number): number {
  const ceiling = Math.min(backoff.maxMs, backoff.initialMs * 2 ** attempt);
  return Math.round(Math.random() * ceiling);
}

/** Runs a task until it succeeds; `what` names it in the log. */
export type Retry = <T>(what: string, task: () => Promise<T>) => Promise<T>;

/** Hears of failures and of recoveries, by source: the indexer's status. */
export interface FailureReport {
  failed(source: FailureSource, message: string): void;
  /** A task that failed on `source` succeeded: the source answers again. */
  recovered(source: FailureSource): void;
}

export interface RetryOptions {
  logger: Logger;
  signal: AbortSignal;
  backoff?: Backoff;
  report?: FailureReport;
}

/**
 * A Retry: each retryable failure (see isRetryable) is logged as a warning naming what failed, and
 * the task runs again after a backoff, for as long as it takes: a node or database that is down
 * pauses the work, it does not end it. A fatal error, or the signal aborting, ends the task at once
 * with that error.
 */
export function createRetry({ logger, signal, backoff = defaultBackoff, report }: RetryOptions): Retry {
  return async (what, task) => {
    const failedOn = new Set<FailureSource>();
    for (let attempt = 0; ; attempt++) {
      signal.throwIfAborted();
      try {
        const result = await task();
        for (const source of failedOn) report?.recovered(source);
        return result;
      } catch (error) {
        if (signal.aborted || !isRetryable(error)) throw error;
        const message = `${what}: ${(error as Error).message}`;
        logger.warn({ attempt }, message);
        const source = failureSource(error);
        failedOn.add(source);
        report?.failed(source, message);
        await sleep(backoffDelay(backoff, attempt), undefined, { signal });
      }
    }
  };
}
