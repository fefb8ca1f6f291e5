import type { IndexerStatus } from '../model.js';

export function initialStatus(batchSize: number): IndexerStatus {
  return { phase: 'starting', head: null, nodeAvailable: true, lastError: null, blocksIndexed: 0, batchSize, newHeads: 'polling' };
}
