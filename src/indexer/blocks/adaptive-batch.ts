/**
 * A batch size that halves when the node fails a request and creeps back up, one step per run of
 * successes, to its ceiling: a struggling node gets smaller requests instead of the same failing one.
 */
export class AdaptiveBatchSize {
  private size: number;
  private successes = 0;

  constructor(
    readonly ceiling: number,
    /** Successful requests in a row before the size grows by one. */
    private readonly successesToGrow = 4,
  ) {
    if (!Number.isInteger(ceiling) || ceiling < 1) throw new RangeError(`batch size must be a positive integer, got ${ceiling}`);
    this.size = ceiling;
  }

  get current(): number {
    return this.size;
  }

  onFailure(): void {
    this.successes = 0;
    this.size = Math.max(1, Math.floor(this.size / 2));
  }

  onSuccess(): void {
    if (this.size === this.ceiling) return;
    this.successes += 1;
    if (this.successes >= this.successesToGrow) {
      this.successes = 0;
      this.size += 1;
    }
  }
}
