import type { Pool } from 'pg';
import { pino } from 'pino';
import { startListCheckpointStage } from '../../src/indexer/stages/list-checkpoint-stage.js';

/** The checkpoint stage over every block indexed and not scanned yet, as `sextant index` runs it beside the indexer. */
export async function runListCheckpointStage(pool: Pool): Promise<void> {
  const stage = startListCheckpointStage({ pool, logger: pino({ level: 'silent' }), scanBlocks: 1_000, restMs: 0, pollIntervalMs: 20 });
  await stage.drained();
  await stage.stop();
}
