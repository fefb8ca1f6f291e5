import type { FailureSource } from '../../errors.js';
import type { Availability, IndexerStatus } from '../../model.js';
import type { FailureReport } from '../retry.js';

const available = (): Availability => ({ available: true, error: null });

export function initialStatus(batchSize: number): IndexerStatus {
  return {
    phase: 'starting',
    head: null,
    node: available(),
    database: available(),
    lastError: null,
    blocksIndexed: 0,
    transactionsIndexed: 0,
    batchSize,
    newHeads: 'polling',
  };
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
