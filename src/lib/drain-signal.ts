/** Promises that a stage resolves together the next time it runs out of work (or ends). */
export interface DrainSignal {
  /** Resolves the next time the stage fires the signal. */
  next(): Promise<void>;
  fire(): void;
}

export function createDrainSignal(): DrainSignal {
  let waiters: (() => void)[] = [];
  return {
    next: () => new Promise<void>((resolve) => waiters.push(resolve)),
    fire() {
      for (const resolve of waiters) resolve();
      waiters = [];
    },
  };
}
