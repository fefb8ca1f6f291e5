/** When the revealed head started moving at its rate, from which block. */
export interface RevealStart {
  /** The head when the rate was set. */
  base: number;
  /** Unix time in ms at which the rate was set: block base + k is revealed at since + k / rate seconds. */
  since: number;
  /** Blocks per second. */
  rate: number;
}

/**
 * The head a node shows of a chain generated whole: it starts at one block and moves on at a rate set
 * while it runs (blocks per second, 0 to stop), never past the chain's last block, as a live chain
 * produces blocks. `onBlock` is called with each block as it is revealed.
 */
export class RevealedHead {
  private start: RevealStart;
  /** The highest block announced to onBlock: a timer may fire a little before its time. */
  private announced: number;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    first: number,
    private readonly last: number,
    private readonly onBlock: (number: number) => void,
  ) {
    this.start = { base: Math.min(first, last), since: Date.now(), rate: 0 };
    this.announced = this.start.base;
  }

  head(now = Date.now()): number {
    const { base, since, rate } = this.start;
    return Math.min(this.last, Math.max(this.announced, base + Math.floor(((now - since) * rate) / 1000)));
  }

  /** Moves on from the present head at `rate` blocks per second. */
  setRate(rate: number): RevealStart {
    clearTimeout(this.timer);
    const now = Date.now();
    this.start = { base: this.head(now), since: now, rate };
    this.scheduleAfter(this.start.base);
    return this.start;
  }

  stop(): void {
    clearTimeout(this.timer);
  }

  private scheduleAfter(shown: number): void {
    const { base, since, rate } = this.start;
    if (rate <= 0 || shown >= this.last) return;
    const next = shown + 1;
    this.timer = setTimeout(
      () => {
        this.announced = next;
        this.onBlock(next);
        this.scheduleAfter(next);
      },
      Math.max(0, since + ((next - base) * 1000) / rate - Date.now()),
    );
  }
}
