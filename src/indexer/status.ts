/** What the indexer is doing, for logs and the API's health endpoint. */
export interface IndexerStatus {
  phase: 'starting' | 'backfilling' | 'following' | 'done' | 'stopped';
  /** The node's head as last seen. */
  head: bigint | null;
  /** False while the node does not answer; indexing pauses and resumes by itself. */
  nodeAvailable: boolean;
  lastError: string | null;
  blocksIndexed: number;
  /** Blocks per node request now: below the configured size while the node struggles. */
  batchSize: number;
  /** How new blocks are noticed: the node's websocket subscription, or polling alone. */
  newHeads: 'websocket' | 'polling';
}

export function initialStatus(batchSize: number): IndexerStatus {
  return { phase: 'starting', head: null, nodeAvailable: true, lastError: null, blocksIndexed: 0, batchSize, newHeads: 'polling' };
}
