/**
 * Chain data as Ethereum JSON-RPC nodes send it: hex strings throughout, optional members by fork.
 * These types describe what a node is expected to send, not what it did send: decodeBlock checks
 * every member it reads before trusting it.
 */

export interface RpcWithdrawal {
  index: string;
  validatorIndex: string;
  address: string;
  /** In gwei. */
  amount: string;
}

export interface RpcTransaction {
  hash: string;
  blockHash: string;
  blockNumber: string;
  transactionIndex: string;
  from: string;
  /** null for contract creations. */
  to: string | null;
  nonce: string;
  type?: string;
  value: string;
  gas: string;
  /** For EIP-1559 transactions in a block, most nodes report the effective price here. */
  gasPrice?: string;
  maxFeePerGas?: string;
  maxPriorityFeePerGas?: string;
  maxFeePerBlobGas?: string;
  /** Blob (type-3) transactions. */
  blobVersionedHashes?: string[];
  /** Set-code (type-4) transactions: EIP-7702 authorizations, as authorizations.ts reads them. */
  authorizationList?: unknown[];
  input: string;
}

export interface RpcBlock {
  number: string;
  hash: string;
  parentHash: string;
  timestamp: string;
  miner: string;
  nonce?: string | null;
  difficulty?: string;
  totalDifficulty?: string | null;
  size?: string;
  extraData: string;
  stateRoot: string;
  gasLimit: string;
  gasUsed: string;
  baseFeePerGas?: string;
  blobGasUsed?: string;
  excessBlobGas?: string;
  uncles: string[];
  /** Full objects: blocks are always requested with `eth_getBlockByNumber(n, true)`. */
  transactions: RpcTransaction[];
  withdrawals?: RpcWithdrawal[];
}

export interface RpcLog {
  address: string;
  topics: string[];
  data: string;
  logIndex: string;
  blockHash?: string;
  blockNumber?: string;
  transactionHash?: string;
  transactionIndex?: string;
}

export interface RpcReceipt {
  transactionHash: string;
  transactionIndex: string;
  blockHash: string;
  blockNumber: string;
  from: string;
  to: string | null;
  contractAddress?: string | null;
  gasUsed: string;
  cumulativeGasUsed: string;
  effectiveGasPrice?: string;
  /** Absent before Byzantium, where receipts carry a state `root` instead. */
  status?: string;
  type?: string;
  blobGasUsed?: string;
  blobGasPrice?: string;
  logs: RpcLog[];
}

/** An uncle's header as `eth_getUncleByBlockHashAndIndex` answers it: a block with no transactions. */
export type RpcUncle = Omit<RpcBlock, 'transactions' | 'withdrawals'>;

/** One block as fetched: the block with full transactions and its receipts, not yet checked. */
export interface RawBlockData {
  /** The number that was asked for. */
  number: bigint;
  block: RpcBlock;
  receipts: RpcReceipt[];
  /** The headers of the uncles the block lists, in its order; fetched only for a block that lists some. */
  uncles?: RpcUncle[];
}
