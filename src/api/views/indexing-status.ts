import { Type, type Static } from '@sinclair/typebox';
import type { IndexingProgressItem } from '../../store/read/stats.js';
import type { IndexingSettings } from '../route.js';
import { Nullable } from '../schemas.js';

export const IndexingStatusSchema = Type.Object({
  finished_indexing: Type.Boolean(),
  finished_indexing_blocks: Type.Boolean(),
  indexed_blocks_ratio: Type.Number(),
  indexed_internal_transactions_ratio: Nullable(Type.Number()),
});

export type IndexingStatus = Static<typeof IndexingStatusSchema>;

/** part / whole, rounded down to two decimals: 1 only when nothing is missing. */
const ratio = (part: bigint, whole: bigint): number => Number((part * 100n) / whole) / 100;

/**
 * Indexing progress over the configured range, from the first block to the target: the node's head
 * while the indexer catches up to it, else the highest indexed block (a following indexer is one
 * block behind the node at times, which is not a backlog). The internal transactions ratio is the
 * share of that range traced, given once the blocks are in (as Blockscout does), null when traces
 * are not indexed at all.
 */
export function indexingStatusView(
  progress: IndexingProgressItem,
  settings: IndexingSettings,
  catchUpTarget: bigint | null,
): IndexingStatus {
  const highest = progress.highest ?? settings.firstBlock - 1n;
  const target = catchUpTarget !== null && catchUpTarget > highest ? catchUpTarget : highest;
  const range = target - settings.firstBlock + 1n;
  if (range <= 0n) {
    return {
      finished_indexing: false,
      finished_indexing_blocks: false,
      indexed_blocks_ratio: 0,
      indexed_internal_transactions_ratio: null,
    };
  }
  // Blocks below a first block raised since they were indexed are not part of the range.
  const indexed = progress.blocks < range ? progress.blocks : range;
  const blocksFinished = indexed === range;
  const traced = progress.untraced === null ? null : indexed - progress.untraced;
  return {
    finished_indexing: blocksFinished && (progress.untraced === null || progress.untraced === 0n),
    finished_indexing_blocks: blocksFinished,
    indexed_blocks_ratio: ratio(indexed, range),
    indexed_internal_transactions_ratio: blocksFinished && traced !== null ? ratio(traced > 0n ? traced : 0n, range) : null,
  };
}
