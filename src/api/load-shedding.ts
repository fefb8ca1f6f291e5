import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Whether the event loop still lags more than `maxDelayMs` now: how long it takes to come back to a
 * timer due at once. Load shedding's delay is the mean of its last sample window, which still holds a
 * burst's lag after the burst has ended; asked of each request that sample would refuse, this lets
 * the first requests after a burst through once the loop has caught up.
 */
export async function eventLoopStillLags(maxDelayMs: number): Promise<boolean> {
  const started = performance.now();
  await sleep(0);
  return performance.now() - started > maxDelayMs;
}
