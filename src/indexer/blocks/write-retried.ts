import type { Pool } from 'pg';
import type { BlockBundle } from '../../model.js';
import { isBlockStored } from '../../store/index-progress.js';
import type { Retry } from '../retry.js';

/**
 * Writes a batch of blocks through `retry`. A write whose connection broke at its COMMIT (a database
 * stopped at once) may have committed without anyone hearing it: before writing again, a retry looks
 * whether the batch's first block is stored, which tells, since a batch is written in one
 * transaction, whether the whole batch is. Written again, it would fail on its primary keys for good.
 */
export async function writeRetried(
  retry: Retry,
  what: string,
  pool: Pool,
  bundles: readonly BlockBundle[],
  write: () => Promise<void>,
): Promise<void> {
  let attempted = false;
  await retry(what, async () => {
    if (attempted && bundles.length > 0 && (await isBlockStored(pool, bundles[0]!.block.hash))) return;
    attempted = true;
    await write();
  });
}
