/**
 * The vocabulary shared by every layer: chain data after decoding, before storage.
 * Hashes and addresses are lowercase 0x-hex; quantities are bigint; nothing here is JSON-RPC shaped.
 */

export type Hex = `0x${string}`;
export type Address = Hex;

export interface BlockRecord {
  number: bigint;
  hash: Hex;
  parentHash: Hex;
  /** Seconds since the epoch. */
  timestamp: bigint;
  miner: Address;
  nonce: Hex | null;
  difficulty: bigint | null;
  totalDifficulty: bigint | null;
  size: bigint | null;
  extraData: Hex;
  stateRoot: Hex;
  gasLimit: bigint;
  gasUsed: bigint;
  baseFeePerGas: bigint | null;
  blobGasUsed: bigint | null;
  excessBlobGas: bigint | null;
  uncles: Hex[];
  transactionsCount: number;
  withdrawalsCount: number;
  /** Σ gas_used × effective gas price over the block's transactions. */
  transactionFees: bigint;
  /** Σ gas_used × base fee over the block's transactions (all types); 0 without a base fee. */
  burntFees: bigint;
  /** Σ min(max_fee − base_fee, max_priority_fee) × gas_used; 0 without a base fee. */
  priorityFee: bigint;
}

export interface TransactionRecord {
  hash: Hex;
  blockNumber: bigint;
  blockHash: Hex;
  index: number;
  blockTimestamp: bigint;
  from: Address;
  to: Address | null;
  createdContract: Address | null;
  nonce: bigint;
  /** EIP-2718 type, null when the node reports none. */
  type: number | null;
  value: bigint;
  gasLimit: bigint;
  /** The effective gas price paid (receipt effectiveGasPrice, else the transaction's gasPrice). */
  gasPrice: bigint | null;
  maxFeePerGas: bigint | null;
  maxPriorityFeePerGas: bigint | null;
  input: Hex;
  /** Receipt status: 1 ok, 0 error, null when the receipt predates status (pre-Byzantium). */
  status: 0 | 1 | null;
  gasUsed: bigint;
  cumulativeGasUsed: bigint;
  maxFeePerBlobGas: bigint | null;
  blobGasUsed: bigint | null;
  blobGasPrice: bigint | null;
}

export interface WithdrawalRecord {
  blockHash: Hex;
  blockNumber: bigint;
  index: bigint;
  validatorIndex: bigint;
  address: Address;
  /** In wei (nodes report gwei). */
  amount: bigint;
}

export interface LogRecord {
  blockHash: Hex;
  blockNumber: bigint;
  transactionHash: Hex;
  transactionIndex: number;
  logIndex: number;
  address: Address;
  topics: Hex[];
  data: Hex;
}

/** What is known about an address from the chain data indexed so far. */
export interface AddressFact {
  hash: Address;
  /** True when the address holds code (created it, or emitted a log). */
  isContract: boolean;
}

/**
 * Everything derived from one block, written in one database transaction.
 * Later stages (token transfers, internal transactions) add their own members.
 */
export interface BlockBundle {
  block: BlockRecord;
  transactions: TransactionRecord[];
  withdrawals: WithdrawalRecord[];
  logs: LogRecord[];
  addresses: AddressFact[];
}
