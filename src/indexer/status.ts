import type { FailureSource } from '../errors.js';
import type { FailureReport } from './retry.js';

/** Whether the node or the database answers the indexer; the failure it gives while it does not. */
export interface Availability {
  available: boolean;
  error: string | null;
}

/** What the indexer is doing, for logs and the API's health endpoint. */
export interface IndexerStatus {
  phase: 'starting' | 'backfilling' | 'following' | 'done' | 'stopped';
  /** The node's head as last seen. */
  head: bigint | null;
  /** Unavailable while the node fails; indexing pauses and resumes by itself. */
  node: Availability;
  /** Unavailable while the database fails; indexing pauses and resumes by itself. */
  database: Availability;
  /** The last retryable failure, of either. */
  lastError: string | null;
  blocksIndexed: number;
  /** Blocks per node request now: below the configured size while the node struggles. */
  batchSize: number;
  /** How new blocks are noticed: the node's websocket subscription, or polling alone. */
  newHeads: 'websocket' | 'polling';
}

const available = (): Availability => ({ available: true, error: null });

export function initialStatus(batchSize: number): IndexerStatus {
  return { phase: 'starting', head: null, node: available(), database: available(), lastError: null, blocksIndexed: 0, batchSize, newHeads: 'polling' };
}

/** Keeps the status's node and database availability as the indexer's retries find them. */
export function reportTo(status: IndexerStatus): FailureReport {
  return {
    failed(source: FailureSource, message: string) {
      status[source] = { available: false, error: message };
      status.lastError = message;
    },
    recovered(source: FailureSource) {
      status[source] = available();
    },
  };
}
