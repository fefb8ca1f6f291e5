import { keccak256, toHex } from 'viem';
import type { Address, BlockBundle, Hex, TransactionRecord } from '../../src/model.js';

/** A deterministic address from a label. */
export function syntheticAddress(label: string): Address {
  return keccak256(toHex(`address:${label}`)).slice(0, 42) as Address;
}

function hashOf(label: string): Hex {
  return keccak256(toHex(label));
}

export interface SyntheticChainOptions {
  from: bigint;
  to: bigint;
  transactionsPerBlock: (number: bigint) => number;
  miner?: (number: bigint) => Address;
  /** Distinguishes forks: the same heights with another salt give other hashes. */
  salt?: string;
  /** The parent of the first block (a fork's branch point); by default the unsalted chain's. */
  parentHash?: Hex;
}

/**
 * A chain of consistent BlockBundles (parent hashes link, fees add up) for tests of the store and the API
 * where lists longer than a real recording are needed.
 */
export function syntheticChain(options: SyntheticChainOptions): BlockBundle[] {
  const salt = options.salt ?? '';
  const bundles: BlockBundle[] = [];
  for (let number = options.from; number <= options.to; number++) {
    const hash = hashOf(`block:${salt}:${number}`);
    const timestamp = 1_700_000_000n + number * 12n;
    const baseFee = 1_000_000_000n;
    const transactions: TransactionRecord[] = Array.from({ length: options.transactionsPerBlock(number) }, (_, index) => ({
      hash: hashOf(`tx:${salt}:${number}:${index}`),
      blockNumber: number,
      blockHash: hash,
      index,
      blockTimestamp: timestamp,
      from: syntheticAddress(`sender${index % 3}`),
      to: syntheticAddress(`receiver${index % 5}`),
      createdContract: null,
      nonce: number * 100n + BigInt(index),
      type: 2,
      value: BigInt(index),
      gasLimit: 21_000n,
      gasPrice: baseFee + 2n,
      maxFeePerGas: baseFee * 2n,
      maxPriorityFeePerGas: 2n,
      input: '0x',
      status: 1,
      gasUsed: 21_000n,
      cumulativeGasUsed: 21_000n * BigInt(index + 1),
      maxFeePerBlobGas: null,
      blobGasUsed: null,
      blobGasPrice: null,
      blobVersionedHashes: [],
      authorizations: [],
    }));
    bundles.push({
      block: {
        number,
        hash,
        parentHash: number === options.from && options.parentHash ? options.parentHash : hashOf(`block:${salt}:${number - 1n}`),
        timestamp,
        miner: options.miner?.(number) ?? syntheticAddress('miner'),
        nonce: '0x0000000000000000',
        difficulty: 0n,
        totalDifficulty: null,
        size: 1000n,
        extraData: '0x',
        stateRoot: hashOf(`state:${salt}:${number}`),
        gasLimit: 30_000_000n,
        gasUsed: 21_000n * BigInt(transactions.length),
        baseFeePerGas: baseFee,
        blobGasUsed: null,
        excessBlobGas: null,
        uncles: [],
        transactionsCount: transactions.length,
        withdrawalsCount: 0,
        blobTransactionsCount: 0,
        beaconDepositsCount: 0,
        transactionFees: transactions.reduce((sum, t) => sum + t.gasUsed * t.gasPrice!, 0n),
        burntFees: transactions.reduce((sum, t) => sum + t.gasUsed * baseFee, 0n),
        priorityFee: transactions.reduce((sum, t) => sum + t.gasUsed * 2n, 0n),
      },
      uncleBlocks: [],
      transactions,
      withdrawals: [],
      logs: [],
      tokenTransfers: [],
      addresses: [],
    });
  }
  return bundles;
}
