/** How long a stage leaves a head alone after the node said it keeps no state of it, before asking again. */
const ASK_AGAIN_MS = 5_000;

/**
 * The head whose state the node said it does not keep (a catch-up far behind a pruning node's head).
 * Reads wait for the indexed head to move, or for a few seconds to pass: a node may refuse a state it
 * then serves (the newest block's, while it is being pruned around), and an index that has reached
 * LAST_BLOCK has no head to move to.
 */
export class StateNotKept {
  private refused: { number: bigint; at: number } | null = null;

  refusedAt(number: bigint): void {
    this.refused = { number, at: Date.now() };
  }

  /** Whether a read at this head should wait. */
  waits(number: bigint): boolean {
    return this.refused !== null && this.refused.number === number && Date.now() - this.refused.at < ASK_AGAIN_MS;
  }
}
