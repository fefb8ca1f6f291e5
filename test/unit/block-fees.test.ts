import { test } from 'node:test';
import assert from 'node:assert/strict';
import { blockFees } from '../../src/chain/block-fees.js';

// A block's fee totals (src/chain/block-fees.ts), worked by hand in gwei (1 gwei = 10^9 wei). The
// burnt fee is gasUsed × baseFee for every transaction; the priority fee is gasUsed × min(maxFee -
// baseFee, maxPriorityFee), a legacy transaction's gasPrice standing in for both caps.

const gwei = 1_000_000_000n;

interface Fees {
  gasUsed: bigint;
  gasPrice: bigint | null;
  maxFeePerGas?: bigint | null;
  maxPriorityFeePerGas?: bigint | null;
}
const transaction = ({ gasUsed, gasPrice, maxFeePerGas = null, maxPriorityFeePerGas = null }: Fees) => ({
  gasUsed,
  gasPrice,
  maxFeePerGas,
  maxPriorityFeePerGas,
});

test('a block without transactions has no fees', () => {
  assert.deepEqual(blockFees([], 7n * gwei), { transactionFees: 0n, burntFees: 0n, priorityFee: 0n });
  assert.deepEqual(blockFees([], null), { transactionFees: 0n, burntFees: 0n, priorityFee: 0n });
});

test('before London (no base fee) nothing is burnt and nothing is a priority fee', () => {
  const transfers = [transaction({ gasUsed: 21_000n, gasPrice: 50n * gwei }), transaction({ gasUsed: 50_000n, gasPrice: 20n * gwei })];
  // 21,000 × 50 gwei + 50,000 × 20 gwei = 1,050,000 + 1,000,000 gwei.
  assert.deepEqual(blockFees(transfers, null), { transactionFees: 2_050_000n * gwei, burntFees: 0n, priorityFee: 0n });
});

test('an EIP-1559 transaction whose fee cap leaves room tips its whole priority fee', () => {
  // Base fee 30 gwei, cap 100, tip 2: pays 32 gwei a gas, burns 30, tips 2.
  const tx = transaction({ gasUsed: 21_000n, gasPrice: 32n * gwei, maxFeePerGas: 100n * gwei, maxPriorityFeePerGas: 2n * gwei });
  assert.deepEqual(blockFees([tx], 30n * gwei), {
    transactionFees: 672_000n * gwei, // 21,000 × 32
    burntFees: 630_000n * gwei, // 21,000 × 30
    priorityFee: 42_000n * gwei, // 21,000 × 2
  });
});

test('an EIP-1559 transaction whose fee cap is close to the base fee tips only what the cap leaves', () => {
  // Base fee 30 gwei, cap 31, tip 2: the tip is min(31 - 30, 2) = 1 gwei a gas.
  const tx = transaction({ gasUsed: 100_000n, gasPrice: 31n * gwei, maxFeePerGas: 31n * gwei, maxPriorityFeePerGas: 2n * gwei });
  assert.deepEqual(blockFees([tx], 30n * gwei), {
    transactionFees: 3_100_000n * gwei,
    burntFees: 3_000_000n * gwei,
    priorityFee: 100_000n * gwei,
  });
});

test("after London a legacy transaction's whole price above the base fee is its tip", () => {
  // gasPrice 50 gwei, base fee 30: min(50 - 30, 50) = 20 gwei a gas.
  const tx = transaction({ gasUsed: 21_000n, gasPrice: 50n * gwei });
  assert.deepEqual(blockFees([tx], 30n * gwei), {
    transactionFees: 1_050_000n * gwei,
    burntFees: 630_000n * gwei,
    priorityFee: 420_000n * gwei,
  });
});

test('a transaction with a zero fee cap tips nothing, and its base fee still counts as burnt', () => {
  const tx = transaction({ gasUsed: 21_000n, gasPrice: 0n, maxFeePerGas: 0n, maxPriorityFeePerGas: 0n });
  assert.deepEqual(blockFees([tx], 7n), { transactionFees: 0n, burntFees: 147_000n, priorityFee: 0n });
});

test('a transaction without a gas price adds no fee and no tip, but is counted as burnt', () => {
  const tx = transaction({ gasUsed: 30_000n, gasPrice: null });
  assert.deepEqual(blockFees([tx], 10n), { transactionFees: 0n, burntFees: 300_000n, priorityFee: 0n });
});

test('the totals of a mixed block are the sums over its transactions', () => {
  const baseFee = 30n * gwei;
  const block = [
    transaction({ gasUsed: 21_000n, gasPrice: 32n * gwei, maxFeePerGas: 100n * gwei, maxPriorityFeePerGas: 2n * gwei }),
    transaction({ gasUsed: 100_000n, gasPrice: 31n * gwei, maxFeePerGas: 31n * gwei, maxPriorityFeePerGas: 2n * gwei }),
    transaction({ gasUsed: 21_000n, gasPrice: 50n * gwei }),
    // An EIP-2930 transaction: a gas price and no caps, as a legacy one.
    transaction({ gasUsed: 60_000n, gasPrice: 35n * gwei }),
  ];
  // Fees: 672,000 + 3,100,000 + 1,050,000 + 2,100,000 gwei. Burnt: 30 × 202,000 gas. Tips: 42,000 +
  // 100,000 + 420,000 + 60,000 × (35 - 30) = 300,000 gwei.
  assert.deepEqual(blockFees(block, baseFee), {
    transactionFees: 6_922_000n * gwei,
    burntFees: 6_060_000n * gwei,
    priorityFee: 862_000n * gwei,
  });
});
