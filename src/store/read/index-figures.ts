import { indexedHead } from '../index-progress.js';
import type { Db } from './sql.js';

/** What the index holds and what is still to do in it, for the metrics. */
export interface IndexFiguresItem {
  /** The highest consensus block indexed, null before the first. */
  head: bigint | null;
  blocks: bigint;
  transactions: bigint;
  /** Consensus blocks not yet traced. */
  untracedBlocks: bigint;
  /** Token contracts and NFT instances whose metadata is not read yet. */
  tokensWithoutMetadata: bigint;
  instancesWithoutMetadata: bigint;
}

/** The figures in one statement; each backlog is counted on its partial index of what is pending. */
export async function readIndexFigures(db: Db): Promise<IndexFiguresItem> {
  const { rows } = await db.query<Record<'head' | 'blocks' | 'transactions' | 'untraced' | 'tokens' | 'instances', string | null>>(
    `SELECT ${indexedHead} AS head, (SELECT blocks FROM chain_totals) AS blocks, (SELECT transactions FROM chain_totals) AS transactions,
            (SELECT count(*) FROM blocks WHERE consensus AND traced_at IS NULL) AS untraced,
            (SELECT count(*) FROM tokens WHERE metadata_fetched_at IS NULL) AS tokens,
            (SELECT count(*) FROM token_instances WHERE metadata_fetched_at IS NULL) AS instances`,
  );
  const row = rows[0]!;
  return {
    head: row.head === null ? null : BigInt(row.head),
    blocks: BigInt(row.blocks ?? 0),
    transactions: BigInt(row.transactions ?? 0),
    untracedBlocks: BigInt(row.untraced ?? 0),
    tokensWithoutMetadata: BigInt(row.tokens ?? 0),
    instancesWithoutMetadata: BigInt(row.instances ?? 0),
  };
}
