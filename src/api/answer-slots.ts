import type { ServerResponse } from 'node:http';
import { availableParallelism } from 'node:os';

/** Requests are waiting for every slot, and for more than the line holds. */
export class AnswerSlotsFullError extends Error {
  override name = 'AnswerSlotsFullError';
  readonly statusCode = 503;

  constructor() {
    super('Too many large answers are being prepared; try again shortly.');
  }
}

/** How many requests hold a slot, and how many wait for one. */
export interface SlotUse {
  readonly held: number;
  readonly waiting: number;
}

/**
 * Answers that can be large (a thousand logs, ten thousand transactions) computed and written a few at
 * a time: each holds its rows, their objects and its JSON until it is serialized, then its body until
 * the socket takes it, and 64 clients asking for them at once held 64 of each (the getLogs pages raised
 * `serve`'s peak RSS from 219 to 261 MB under the API benchmark). A few at a time answer as many a
 * second or more (bench/README.md, "Large answers a few at a time"). The rest wait in line, in order,
 * up to `maxWaiting`; past that `run` refuses a request at once. A request whose client leaves while it
 * waits is not taken out of the line: its first query fails at once (client-gone.ts) and frees the slot.
 */
export class AnswerSlots implements SlotUse {
  private busy = 0;
  private readonly line: (() => void)[] = [];

  constructor(
    private readonly slots: number,
    private readonly maxWaiting: number,
  ) {}

  get held(): number {
    return this.busy;
  }

  get waiting(): number {
    return this.line.length;
  }

  /**
   * A slot, once one is free: the function that gives it back (once; a second call does nothing).
   * Null at once, and no slot, when `maxWaiting` requests wait already.
   */
  async take(): Promise<(() => void) | null> {
    if (this.busy >= this.slots) {
      if (this.line.length >= this.maxWaiting) return null;
      // The slot is handed over by the holder that gives it back, so that no request arriving meanwhile takes it first.
      await new Promise<void>((resolve) => this.line.push(resolve));
    } else {
      this.busy += 1;
    }
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      const next = this.line.shift();
      if (next === undefined) this.busy -= 1;
      else next();
    };
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    const giveBack = await this.take();
    if (giveBack === null) throw new AnswerSlotsFullError();
    try {
      return await task();
    } finally {
      giveBack();
    }
  }
}

/** The longest a slot waits for its answer to be written (`handedOver`): a client that reads slower holds it no longer. */
export const MAX_WRITE_WAIT_MS = 1000;

/**
 * Resolves once the answer has been handed to the socket (or the connection has closed), or after
 * `maxWaitMs`: an answer the client has not read yet waits in the process's memory, not the kernel's.
 */
export function handedOver(response: ServerResponse, maxWaitMs: number): Promise<void> {
  if (response.writableFinished || response.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      response.off('finish', done).off('close', done);
      resolve();
    };
    const timer = setTimeout(done, maxWaitMs);
    response.once('finish', done).once('close', done);
  });
}

/** Two slots a core: one computes while the other's queries wait on the database. */
export const answerSlotsPerProcess = (): number => 2 * availableParallelism();

/** Requests that wait for a slot, per slot, beyond which one is refused at once. */
export const WAITING_PER_SLOT = 32;

/** A line of `slots` slots, two a core by default, in which up to `WAITING_PER_SLOT` a slot wait. */
export const slotsLine = (slots = answerSlotsPerProcess()): AnswerSlots => new AnswerSlots(slots, WAITING_PER_SLOT * slots);
