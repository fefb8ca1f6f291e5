import { setTimeout as sleep } from 'node:timers/promises';

export interface Wakeup {
  /** Ends the current wait, or the next one if nobody waits now. */
  wake(): void;
  /** Resolves on wake(), after `timeoutMs`, or when the signal aborts, whichever comes first. */
  wait(timeoutMs: number, signal: AbortSignal): Promise<void>;
}

export function createWakeup(): Wakeup {
  let pending = false;
  let waiter: AbortController | null = null;
  return {
    wake() {
      pending = true;
      waiter?.abort();
    },
    async wait(timeoutMs, signal) {
      if (pending) {
        pending = false;
        return;
      }
      waiter = new AbortController();
      try {
        await sleep(timeoutMs, undefined, { signal: AbortSignal.any([signal, waiter.signal]) });
      } catch {
        // Woken or stopped: either way the wait is over.
      } finally {
        waiter = null;
        pending = false;
      }
    },
  };
}
