import type { TransactionRecord } from '../model.js';

type FeeInputs = Pick<TransactionRecord, 'gasUsed' | 'gasPrice' | 'maxFeePerGas' | 'maxPriorityFeePerGas'>;

export interface BlockFees {
  transactionFees: bigint;
  burntFees: bigint;
  priorityFee: bigint;
}

/**
 * A block's fee totals as Blockscout computes them (`Explorer.Chain.Block`): the burnt fee counts
 * every transaction type, and without a base fee (before London) nothing is burnt and no part of
 * the fee is a priority fee.
 */
export function blockFees(transactions: readonly FeeInputs[], baseFeePerGas: bigint | null): BlockFees {
  let transactionFees = 0n;
  let burntFees = 0n;
  let priorityFee = 0n;
  for (const transaction of transactions) {
    if (transaction.gasPrice !== null) transactionFees += transaction.gasUsed * transaction.gasPrice;
    if (baseFeePerGas === null) continue;
    burntFees += transaction.gasUsed * baseFeePerGas;
    priorityFee += transactionPriorityFee(transaction, baseFeePerGas);
  }
  return { transactionFees, burntFees, priorityFee };
}

/** A legacy transaction's whole price above the base fee is its tip, so gasPrice stands in for both caps. */
function transactionPriorityFee(transaction: FeeInputs, baseFeePerGas: bigint): bigint {
  const maxFee = transaction.maxFeePerGas ?? transaction.gasPrice;
  const maxPriorityFee = transaction.maxPriorityFeePerGas ?? transaction.gasPrice;
  if (maxFee === null || maxPriorityFee === null || maxFee === 0n) return 0n;
  const headroom = maxFee - baseFeePerGas;
  return (headroom < maxPriorityFee ? headroom : maxPriorityFee) * transaction.gasUsed;
}
