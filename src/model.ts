/**
 * The vocabulary shared by every layer: chain data after decoding, before storage, and what one layer
 * hands another through src/app (the indexer's status for the API); and the few small pure helpers on
 * hex values that more than one layer needs.
 * Hashes and addresses are lowercase 0x-hex; quantities are bigint; nothing here is JSON-RPC shaped.
 */

export type Hex = `0x${string}`;
export type Address = Hex;

/** Where mints come from and burns go (0x…dEaD is an ordinary address). */
export const ZERO_ADDRESS: Address = '0x0000000000000000000000000000000000000000';

/** A quantity as JSON-RPC and Parity's traces write it: 0x and its hex digits, no leading zeros. */
export const hexQuantity = (value: bigint | number): Hex => `0x${value.toString(16)}`;

const HEX_DATA = /^0x(?:[0-9a-f]{2})*$/i;

/** Whether a value is 0x-prefixed hex bytes (digits of either case), and exactly `bytes` long when given. */
export const isHexData = (value: unknown, bytes?: number): value is string =>
  typeof value === 'string' && HEX_DATA.test(value) && (bytes === undefined || value.length === 2 + 2 * bytes);

/** The node clients Sextant tells apart. */
export const variants = ['geth', 'erigon', 'nethermind', 'besu', 'reth', 'anvil'] as const;
export type Variant = (typeof variants)[number];

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
  /** Type-3 (EIP-4844) transactions in the block. */
  blobTransactionsCount: number;
  /** EIP-6110 deposit requests of the block (0 before Prague). */
  beaconDepositsCount: number;
  /** Σ gas_used × effective gas price over the block's transactions. */
  transactionFees: bigint;
  /** Σ gas_used × base fee over the block's transactions (all types); 0 without a base fee. */
  burntFees: bigint;
  /** Σ min(max_fee − base_fee, max_priority_fee) × gas_used; 0 without a base fee. */
  priorityFee: bigint;
}

/** What a transaction says itself, whether mined or waiting in the pool (its gas price aside). */
export interface TransactionBody {
  hash: Hex;
  from: Address;
  /** null for contract creations. */
  to: Address | null;
  nonce: bigint;
  /** EIP-2718 type, null when the node reports none. */
  type: number | null;
  value: bigint;
  gasLimit: bigint;
  maxFeePerGas: bigint | null;
  maxPriorityFeePerGas: bigint | null;
  input: Hex;
}

export interface TransactionRecord extends TransactionBody {
  blockNumber: bigint;
  blockHash: Hex;
  index: number;
  blockTimestamp: bigint;
  createdContract: Address | null;
  /** The effective gas price paid (receipt effectiveGasPrice, else the transaction's gasPrice). */
  gasPrice: bigint | null;
  /** Receipt status: 1 ok, 0 error, null when the receipt predates status (pre-Byzantium). */
  status: 0 | 1 | null;
  gasUsed: bigint;
  cumulativeGasUsed: bigint;
  maxFeePerBlobGas: bigint | null;
  blobGasUsed: bigint | null;
  blobGasPrice: bigint | null;
  /** A blob (type-3) transaction's EIP-4844 versioned hashes; empty for every other type. */
  blobVersionedHashes: Hex[];
  /** A set-code (type-4) transaction's EIP-7702 authorizations, in list order; empty for every other type. */
  authorizations: AuthorizationRecord[];
}

/** One signed EIP-7702 authorization: its signer (authority) lets its account run `address`'s code. */
export interface AuthorizationRecord {
  chainId: bigint;
  address: Address;
  nonce: bigint;
  yParity: number;
  r: bigint;
  s: bigint;
  /** The signer recovered from the signature; null when the signature recovers none (an invalid authorization). */
  authority: Address | null;
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

export type TokenType = 'ERC-20' | 'ERC-721' | 'ERC-1155' | 'ERC-404';

/**
 * One transferred (token id, amount) of a token transfer log: an ERC-1155 TransferBatch gives one
 * record per listed id, told apart by batchIndex (0 for every other log).
 */
export interface TokenTransferRecord {
  blockHash: Hex;
  blockNumber: bigint;
  transactionHash: Hex;
  transactionIndex: number;
  logIndex: number;
  batchIndex: number;
  tokenAddress: Address;
  tokenType: TokenType;
  from: Address;
  to: Address;
  /** 1 for an ERC-721 transfer. */
  amount: bigint;
  /** Null for fungible transfers (ERC-20, and ERC-404's fungible side). */
  tokenId: bigint | null;
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
  /** The headers of the block's uncles (ommers), in the order the block lists them. */
  uncleBlocks: BlockRecord[];
  transactions: TransactionRecord[];
  withdrawals: WithdrawalRecord[];
  logs: LogRecord[];
  tokenTransfers: TokenTransferRecord[];
  addresses: AddressFact[];
}

export type InternalTransactionType = 'call' | 'create' | 'create2' | 'selfdestruct';
export type CallType = 'call' | 'delegatecall' | 'staticcall' | 'callcode';

/**
 * One trace frame of a transaction, as Parity's trace_block flattens it (depth-first, `traceAddress`
 * the path of child positions from the top-level frame). For a creation `to` is null and
 * `createdContract` the new contract; for a selfdestruct `from` is the destroyed contract, `to`
 * the refund address and `value` its balance.
 */
export interface InternalTransactionRecord {
  transactionIndex: number;
  transactionHash: Hex;
  /** Position in the transaction's flattened trace list; 0 is the top-level frame. */
  index: number;
  traceAddress: number[];
  type: InternalTransactionType;
  callType: CallType | null;
  from: Address;
  to: Address | null;
  createdContract: Address | null;
  value: bigint;
  gas: bigint | null;
  /** Null when the frame has no result (Parity's `"result": null`: out of gas, a selfdestruct). */
  gasUsed: bigint | null;
  /** Call input or creation init code. */
  input: Hex | null;
  /** Call output (revert data for a reverted call) or created code; null without a result. */
  output: Hex | null;
  error: string | null;
}

export type BlockRewardType = 'validator' | 'emission_funds' | 'uncle';

export interface BlockRewardRecord {
  address: Address;
  type: BlockRewardType;
  reward: bigint;
}

/** Everything the trace stage derives from one block. */
export interface BlockTraces {
  blockHash: Hex;
  blockNumber: bigint;
  internalTransactions: InternalTransactionRecord[];
  /** As the node reports them (minted coins only: transaction fees are added when stored). */
  rewards: BlockRewardRecord[];
}

/** A stored block still to trace: what the node's answer is checked against. */
export interface UntracedBlock {
  hash: Hex;
  number: bigint;
  /** In block order. */
  transactionHashes: Hex[];
}

/** Blockscout's proxy kinds that Sextant detects (its `proxy_type`). */
export const proxyTypes = ['eip1167', 'eip7702', 'master_copy', 'eip1967', 'eip1822', 'eip1967_beacon', 'eip2535', 'eip1967_oz'] as const;
export type ProxyType = (typeof proxyTypes)[number];

/** What a proxy delegates to, read from the node: its implementations in order (a diamond's facets), and an EIP-1967 beacon proxy's beacon. */
export interface ProxyRecord {
  proxyType: ProxyType;
  implementations: Address[];
  beacon: Address | null;
}

/**
 * An address's primary ENS name as read from the node: the name its reverse record gives (`claimed`,
 * with its node), and `name`, the same name only when it is normalized and resolves forward to the
 * address (else null). `reverseNode` is the address's node under addr.reverse.
 */
export interface PrimaryNameRecord {
  address: Address;
  reverseNode: Hex;
  claimed: string | null;
  claimedNode: Hex | null;
  name: string | null;
}

/** The kinds of an address tag: a public tag, or one of the metadata service's tag types. */
export const addressTagTypes = ['public', 'name', 'generic', 'classifier', 'information', 'note', 'protocol'] as const;
export type AddressTagType = (typeof addressTagTypes)[number];

/** A tag the operator gives an address (ADDRESS_TAGS_FILE). */
export interface AddressTagRecord {
  address: Address;
  /** Unique among the address's tags. */
  slug: string;
  /** What is shown. */
  name: string;
  tagType: AddressTagType;
  ordinal: number;
  meta: Record<string, unknown> | null;
}

/** What a token contract says about itself; null where it reverted, answered garbage or did not answer. */
export interface TokenMetadata {
  name: string | null;
  symbol: string | null;
  decimals: bigint | null;
  totalSupply: bigint | null;
}

/**
 * Market figures from a price source, as decimal strings in US dollars exactly as the source gave them
 * (a JSON number's shortest form), or null where the source gave none.
 */
export interface CoinMarket {
  fiatValue: string | null;
  priceChangePercentage24h: number | null;
  marketCap: string | null;
  volume24h: string | null;
  imageUrl: string | null;
  /** Coins in circulation, as the source counts them. */
  circulatingSupply: string | null;
}

/** One day (UTC, `YYYY-MM-DD`) of the coin's market history: its last price that day and its market cap, in US dollars. */
export interface CoinMarketDay {
  day: string;
  closingPrice: string | null;
  marketCap: string | null;
}

/** A token's market figures from a price source, by its contract address on this chain. */
export interface TokenMarket {
  address: Address;
  fiatValue: string | null;
  circulatingMarketCap: string | null;
  volume24h: string | null;
  iconUrl: string | null;
}

/** One token of a token list (tokenlists.org's format), for this chain's id. */
export interface TokenListEntry {
  address: Address;
  name: string | null;
  symbol: string | null;
  decimals: bigint | null;
  logoUri: string | null;
}

/** A transaction waiting in the node's pool: what it asks for, nothing of what mining it would do. */
export interface PoolTransaction extends TransactionBody {
  /** As the node reports it; for EIP-1559 transactions nodes report the max fee per gas here. */
  gasPrice: bigint | null;
}

/** Whether the node or the database answers the indexer; the failure it gives while it does not. */
export interface Availability {
  available: boolean;
  error: string | null;
}

/** What the indexer is doing, for logs and the API's health endpoint. */
export interface IndexerStatus {
  phase: 'starting' | 'backfilling' | 'following' | 'done' | 'stopped';
  /** The node's head as last seen. */
  head: bigint | null;
  /** Unavailable while the node fails; indexing pauses and resumes by itself. */
  node: Availability;
  /** Unavailable while the database fails; indexing pauses and resumes by itself. */
  database: Availability;
  /** The last retryable failure, of either. */
  lastError: string | null;
  blocksIndexed: number;
  /** Transactions in the blocks indexed since the indexer started. */
  transactionsIndexed: number;
  /** Blocks per node request now: below the configured size while the node struggles. */
  batchSize: number;
  /** How new blocks are noticed: the node's websocket subscription, or polling alone. */
  newHeads: 'websocket' | 'polling';
}

/** Kinds of failed node requests, as the JSON-RPC clients count them. */
export type NodeErrorKind = 'timeout' | 'connection' | 'http' | 'rate_limited' | 'malformed' | 'refused';

/** Failed node requests (each attempt, retried or not) since the process started, by kind. */
export type NodeRequestErrors = Map<NodeErrorKind, number>;

/** How fast a stage works through what is left of its range, measured over the last few seconds. */
export interface StageProgress {
  /** Blocks done of the stage's range, and its size. */
  done: number;
  total: number;
  blocksPerSecond: number;
  /** Null for the trace stage, which does not count transactions. */
  transactionsPerSecond: number | null;
  /** At the current pace; null while it does not move. */
  secondsLeft: number | null;
}

/** The catch-up's and the trace stage's progress: null while a stage has nothing left to do. */
export interface IndexingProgress {
  catchUp: StageProgress | null;
  traces: StageProgress | null;
}

/** A contract verified from its sources: what the verification found, as stored and served. */
export interface VerifiedContract {
  name: string;
  filePath: string;
  language: 'solidity' | 'yul' | 'vyper';
  /** As Blockscout shows it: `v0.8.37+commit.f401782d`. */
  compilerVersion: string;
  /** The standard-JSON settings compiled with (outputSelection left out). */
  compilerSettings: Record<string, unknown>;
  optimizationEnabled: boolean;
  optimizationRuns: number | null;
  /** `default` when the input named none. */
  evmVersion: string;
  abi: unknown[] | null;
  sourceCode: string;
  additionalSources: { filePath: string; sourceCode: string }[];
  constructorArgs: Hex | null;
  externalLibraries: { name: string; addressHash: Address }[];
  /** Full: the metadata hash matched too (a perfect runtime or creation match). */
  match: 'full' | 'partial';
  /** keccak256 of the on-chain runtime code that was matched. */
  runtimeCodeHash: Hex;
}

/** A signature of the signature database Sextant ships, under its 4-byte selector (an event's topic cut to 4 bytes). */
export interface KnownSignature {
  /** A function's or an error's (4byte databases do not tell them apart), or an event's. */
  type: 'function' | 'event';
  selector: Hex;
  /** Types only: `transfer(address,uint256)`. */
  signature: string;
  name: string;
}
