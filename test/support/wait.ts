import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Waits until `condition` holds, checking every `intervalMs`; fails naming `what` after `timeoutMs`.
 * Every test that polls goes through here, so that nothing waits without a deadline. `what` may be
 * a function, read when the deadline passes, to say how far things got (say, how many rows are left).
 */
export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  what: string | (() => string),
  { timeoutMs = 60_000, intervalMs = 25 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting until ${typeof what === 'string' ? what : what()}`);
    }
    await sleep(intervalMs);
  }
}
