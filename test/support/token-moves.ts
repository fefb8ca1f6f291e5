import type { Address, BlockBundle, TokenTransferRecord, TokenType } from '../../src/model.js';

/**
 * A token transfer as a test lists it: token, its type in the log, from, to, amount, id, and its log
 * and batch index (by default its place in the block's list, and 0).
 */
export type Move = [
  token: Address,
  type: TokenType,
  from: Address,
  to: Address,
  amount: bigint,
  id: bigint | null,
  logIndex?: number,
  batchIndex?: number,
];

/** Gives each block the transfers listed for it, carried by its first transaction. */
export function withTransfers(bundles: BlockBundle[], moves: Move[][]): BlockBundle[] {
  return bundles.map((bundle, i) => {
    const transaction = bundle.transactions[0]!;
    const tokenTransfers: TokenTransferRecord[] = (moves[i] ?? []).map(
      ([tokenAddress, tokenType, from, to, amount, tokenId, logIndex, batchIndex], place) => ({
        blockHash: bundle.block.hash,
        blockNumber: bundle.block.number,
        transactionHash: transaction.hash,
        transactionIndex: 0,
        logIndex: logIndex ?? place,
        batchIndex: batchIndex ?? 0,
        tokenAddress,
        tokenType,
        from,
        to,
        amount,
        tokenId,
      }),
    );
    return { ...bundle, tokenTransfers };
  });
}
