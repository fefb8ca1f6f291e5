import type { PoolClient } from 'pg';

/** What a batch of blocks adds to (or, retracted, takes from) the chain's totals. */
export interface TotalsDelta {
  blocks: bigint;
  transactions: bigint;
  gasUsed: bigint;
  /** Addresses the address counters now count something for, less those they no longer do. */
  addresses: bigint;
}

/** The totals of these consensus blocks, signed: 1n when written, -1n when retracted. */
export function blockTotals(
  blocks: readonly { transactionsCount: number; gasUsed: bigint }[],
  addresses: bigint,
  sign: 1n | -1n,
): TotalsDelta {
  let transactions = 0n;
  let gasUsed = 0n;
  for (const block of blocks) {
    transactions += BigInt(block.transactionsCount);
    gasUsed += block.gasUsed;
  }
  return { blocks: sign * BigInt(blocks.length), transactions: sign * transactions, gasUsed: sign * gasUsed, addresses };
}

/**
 * Adds the delta to chain_totals inside the writer's (or the retraction's) transaction. Every write
 * updates this one row, so it comes last: the row stays locked only until the commit that follows.
 */
export async function applyTotalsDelta(client: PoolClient, delta: TotalsDelta): Promise<void> {
  await client.query(
    `INSERT INTO chain_totals AS t (blocks, transactions, gas_used, addresses) VALUES ($1, $2, $3, $4)
     ON CONFLICT (id) DO UPDATE SET
       blocks = t.blocks + excluded.blocks,
       transactions = t.transactions + excluded.transactions,
       gas_used = t.gas_used + excluded.gas_used,
       addresses = t.addresses + excluded.addresses`,
    [delta.blocks.toString(), delta.transactions.toString(), delta.gasUsed.toString(), delta.addresses.toString()],
  );
}
