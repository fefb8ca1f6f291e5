import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { type Hex, decodeFunctionData, getAddress, parseAbiItem } from 'viem';
import type { RpcReceipt, RpcTransaction } from '../../src/chain/rpc-types.js';
import { type ExpectedAddressInfo, expectedAddressInfo, expectedPercentage, expectedTimestamp, knownMethodNames } from './expected-json.js';
import { loadMainnetBlock18000000 } from './mainnet-fixtures.js';

// What the API serves for mainnet block 18,000,000 once it is indexed, computed from the recording alone
// (hex quantities of the node's JSON and plain bigint arithmetic), never with the code under test.

const { block, receipts } = loadMainnetBlock18000000();

/** A member the recording is known to carry, as a bigint. */
function quantity(value: string | null | undefined, what: string): bigint {
  if (value == null) throw new Error(`the recording of block 18,000,000 has no ${what}`);
  return BigInt(value);
}

const min = (a: bigint, b: bigint) => (a < b ? a : b);
const GWEI = 1_000_000_000n;

const baseFee = quantity(block.baseFeePerGas, 'baseFeePerGas');
const timestamp = expectedTimestamp(BigInt(block.timestamp));

/** The receipt of a transaction, which the recording lists in transaction order. */
function receiptOf(tx: RpcTransaction): RpcReceipt {
  const receipt = receipts[Number(BigInt(tx.transactionIndex))];
  if (receipt?.transactionHash !== tx.hash) throw new Error(`the receipt at ${tx.transactionIndex} is not that of ${tx.hash}`);
  return receipt;
}

/** The fee per gas that goes to the miner: the tip, capped by what the max fee leaves above the base fee. */
function priorityFeePerGas(tx: RpcTransaction): bigint {
  const maxFee = quantity(tx.maxFeePerGas ?? tx.gasPrice, `max fee of ${tx.hash}`);
  const tip = quantity(tx.maxPriorityFeePerGas ?? tx.gasPrice, `tip of ${tx.hash}`);
  return min(maxFee - baseFee, tip);
}

/** Addresses the index knows as contracts: those that emitted a log or were created (successfully). */
export const mainnetKnownContracts: ReadonlySet<string> = new Set(
  receipts.flatMap((receipt) => [
    ...receipt.logs.map((log) => log.address),
    ...(receipt.contractAddress && receipt.status === '0x1' ? [receipt.contractAddress] : []),
  ]),
);

/**
 * The fields of an E2 transaction item that the tests check, with the address objects reduced to what
 * is checked of them (`from` and `to` and `created_contract` to their hashes, and `to_is_contract`).
 */
export interface TransactionFields {
  hash: string;
  block_number: number;
  position: number;
  timestamp: string;
  confirmations: number;
  nonce: number;
  type: number;
  value: string;
  gas_limit: number;
  gas_used: string;
  gas_price: string;
  fee: { type: 'actual'; value: string };
  base_fee_per_gas: string;
  max_fee_per_gas: string | null;
  max_priority_fee_per_gas: string | null;
  transaction_burnt_fee: string | null;
  priority_fee: string | null;
  status: 'ok' | 'error';
  result: string;
  revert_reason: null;
  raw_input: string;
  from: string;
  to: string | null;
  to_is_contract: boolean | null;
  created_contract: string | null;
  method: string | null;
  transaction_types: string[];
}

/** The checked fields of a served E2 item, in the shape of TransactionFields (a missing member stays undefined). */
export function servedTransactionFields(item: any): Record<keyof TransactionFields, unknown> {
  return {
    hash: item.hash,
    block_number: item.block_number,
    position: item.position,
    timestamp: item.timestamp,
    confirmations: item.confirmations,
    nonce: item.nonce,
    type: item.type,
    value: item.value,
    gas_limit: item.gas_limit,
    gas_used: item.gas_used,
    gas_price: item.gas_price,
    fee: item.fee,
    base_fee_per_gas: item.base_fee_per_gas,
    max_fee_per_gas: item.max_fee_per_gas,
    max_priority_fee_per_gas: item.max_priority_fee_per_gas,
    transaction_burnt_fee: item.transaction_burnt_fee,
    priority_fee: item.priority_fee,
    status: item.status,
    result: item.result,
    revert_reason: item.revert_reason,
    raw_input: item.raw_input,
    from: item.from.hash,
    to: item.to?.hash ?? null,
    to_is_contract: item.to?.is_contract ?? null,
    created_contract: item.created_contract?.hash ?? null,
    method: item.method,
    transaction_types: item.transaction_types,
  };
}

function expectedTransaction(tx: RpcTransaction): TransactionFields {
  const receipt = receiptOf(tx);
  const gasUsed = BigInt(receipt.gasUsed);
  const price = quantity(receipt.effectiveGasPrice, `effectiveGasPrice of ${tx.hash}`);
  const dynamic = tx.type === '0x2';
  const succeeded = receipt.status === '0x1';
  const toContract = tx.to !== null && mainnetKnownContracts.has(tx.to);
  const selector = tx.input.length >= 10 ? tx.input.slice(0, 10) : null;
  return {
    hash: tx.hash,
    block_number: 18_000_000,
    position: Number(BigInt(tx.transactionIndex)),
    timestamp,
    confirmations: 1,
    nonce: Number(BigInt(tx.nonce)),
    type: Number(quantity(tx.type, `type of ${tx.hash}`)),
    value: BigInt(tx.value).toString(),
    gas_limit: Number(BigInt(tx.gas)),
    gas_used: gasUsed.toString(),
    gas_price: price.toString(),
    fee: { type: 'actual', value: (price * gasUsed).toString() },
    base_fee_per_gas: baseFee.toString(),
    max_fee_per_gas: dynamic ? quantity(tx.maxFeePerGas, `maxFeePerGas of ${tx.hash}`).toString() : null,
    max_priority_fee_per_gas: dynamic ? quantity(tx.maxPriorityFeePerGas, `maxPriorityFeePerGas of ${tx.hash}`).toString() : null,
    transaction_burnt_fee: dynamic ? (baseFee * gasUsed).toString() : null,
    priority_fee: dynamic ? (priorityFeePerGas(tx) * gasUsed).toString() : null,
    status: succeeded ? 'ok' : 'error',
    // Without the internal-transactions stage, a failure's reason is not known yet.
    result: succeeded ? 'success' : 'awaiting_internal_transactions',
    revert_reason: null,
    raw_input: tx.input,
    from: getAddress(tx.from),
    to: tx.to === null ? null : getAddress(tx.to),
    to_is_contract: tx.to === null ? null : toContract,
    created_contract: receipt.contractAddress ? getAddress(receipt.contractAddress) : null,
    method: toContract && selector !== null ? (knownMethodNames[selector] ?? selector) : null,
    transaction_types: [
      ...(BigInt(tx.value) > 0n ? ['coin_transfer'] : []),
      ...(toContract ? ['contract_call'] : []),
      ...(tx.to === null ? ['contract_creation'] : []),
      ...(receipt.contractAddress && tokenContracts().has(receipt.contractAddress) ? ['token_creation'] : []),
      ...(receipt.logs.some(isTokenTransferLog) ? ['token_transfer'] : []),
    ],
  };
}

const tokenTransferTopics = [
  '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef', // Transfer
  '0xc3d58168c5ae7397731d063d5bbf3d657854427343f4c083240f7aacaa2d0f62', // TransferSingle
  '0x4a39dc06d4c0dbc64b70af90fd698a233a518aa5d07e595d983b8c0526c8f7fb', // TransferBatch
];

/** The contracts that emitted a token transfer in the block: the tokens indexing it knows. */
function tokenContracts(): Set<string> {
  return new Set(
    block.transactions.flatMap((tx) =>
      receiptOf(tx)
        .logs.filter(isTokenTransferLog)
        .map((log) => log.address),
    ),
  );
}

/** ERC-20 Transfer has 3 topics and a one-word value, ERC-721 Transfer 4 topics; ERC-1155's events 4. */
function isTokenTransferLog(log: { topics: string[]; data: string }): boolean {
  const [signature] = log.topics;
  if (signature === undefined || !tokenTransferTopics.includes(signature)) return false;
  if (signature === tokenTransferTopics[0] && log.topics.length === 3) return log.data.length === 66;
  return log.topics.length === 4;
}

/** The 94 E2 items of block 18,000,000, in the order the API lists them: newest (highest position) first. */
export const expectedMainnetTransactions: readonly TransactionFields[] = block.transactions.map(expectedTransaction).reverse();

const gasUsed = BigInt(block.gasUsed);
const gasLimit = BigInt(block.gasLimit);
const transactionFees = block.transactions.reduce(
  (sum, tx) => sum + quantity(receiptOf(tx).effectiveGasPrice, `effectiveGasPrice of ${tx.hash}`) * BigInt(receiptOf(tx).gasUsed),
  0n,
);
const burntFees = block.transactions.reduce((sum, tx) => sum + baseFee * BigInt(receiptOf(tx).gasUsed), 0n);
// Legacy transactions count too: their gas price is both their max fee and their tip.
const priorityFees = block.transactions.reduce((sum, tx) => sum + priorityFeePerGas(tx) * BigInt(receiptOf(tx).gasUsed), 0n);

/** The E5 item of block 18,000,000 (blocks-validated of its miner), every field. */
export const expectedMainnetBlock = {
  base_fee_per_gas: baseFee.toString(),
  // Before Prague: no requestsHash, so no deposit requests.
  beacon_deposits_count: 0,
  blob_gas_used: null,
  blob_transactions_count: block.transactions.filter((tx) => tx.type === '0x3').length,
  burnt_fees: burntFees.toString(),
  burnt_fees_percentage: expectedPercentage(burntFees, transactionFees),
  difficulty: '0',
  excess_blob_gas: null,
  extra_data: block.extraData,
  gas_limit: gasLimit.toString(),
  gas_target_percentage: expectedPercentage(2n * gasUsed - gasLimit, gasLimit),
  gas_used: gasUsed.toString(),
  gas_used_percentage: expectedPercentage(gasUsed, gasLimit),
  hash: block.hash,
  height: 18_000_000,
  internal_transactions_count: null,
  is_pending_update: false,
  miner: expectedAddressInfo(getAddress(block.miner)),
  nonce: block.nonce,
  parent_hash: block.parentHash,
  priority_fee: priorityFees.toString(),
  rewards: [],
  size: Number(quantity(block.size, 'size')),
  state_root: block.stateRoot,
  timestamp,
  total_difficulty: null,
  transaction_fees: transactionFees.toString(),
  transactions_count: 94,
  type: 'block',
  uncles_hashes: [],
  withdrawals_count: 16,
};

export interface ExpectedWithdrawal {
  amount: string;
  index: number;
  receiver: ExpectedAddressInfo;
  validator_index: number;
}

/** The 16 E9 items of block 18,000,000, in the order the API lists them (highest index first), amounts in wei. */
export const expectedMainnetWithdrawals: readonly ExpectedWithdrawal[] = [...(block.withdrawals ?? [])]
  .sort((a, b) => Number(BigInt(b.index) - BigInt(a.index)))
  .map((w) => ({
    amount: (BigInt(w.amount) * GWEI).toString(),
    index: Number(BigInt(w.index)),
    receiver: expectedAddressInfo(getAddress(w.address)),
    validator_index: Number(BigInt(w.validatorIndex)),
  }));

/** sevm's signature database, as its files hold it: a signature by selector (8 hex digits). */
function shippedFunctionSignatures(): Record<string, string> {
  const directory = dirname(createRequire(import.meta.url).resolve('sevm/4bytedb'));
  return JSON.parse(readFileSync(join(directory, 'functionHashes.min.json'), 'utf8')) as Record<string, string>;
}

/**
 * The transactions as a Sextant that has loaded its signature database serves them: a call whose
 * selector has a signature there that decodes its input (viem) is named by that signature.
 */
export function expectedMainnetTransactionsWithSignatures(): TransactionFields[] {
  const signatures = shippedFunctionSignatures();
  return expectedMainnetTransactions.map((expected) => {
    const signature = expected.method?.startsWith('0x') ? signatures[expected.method.slice(2)] : undefined;
    if (signature === undefined) return expected;
    try {
      decodeFunctionData({ abi: [parseAbiItem(`function ${signature}`)], data: expected.raw_input as Hex });
    } catch {
      return expected;
    }
    return { ...expected, method: signature.slice(0, signature.indexOf('(')) };
  });
}
