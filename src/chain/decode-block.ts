import type { Address, BlockBundle, BlockRecord, Hex, LogRecord, TransactionRecord, WithdrawalRecord } from '../model.js';
import { decodeAuthorization } from './authorizations.js';
import { beaconDepositsCount } from './beacon-deposits.js';
import { blockFees } from './block-fees.js';
import { complainAbout, nodeFields, type Complain, type NodeFields } from './node-fields.js';
import { decodeTokenTransfers } from './token-transfers.js';
import type { RawBlockData, RpcBlock, RpcLog, RpcReceipt, RpcTransaction, RpcUncle, RpcWithdrawal } from './rpc-types.js';

const WEI_PER_GWEI = 1_000_000_000n;

/** Members read only to tell which fork's members a block, transaction or receipt must carry. */
type BlockMarkers = RpcBlock & { mixHash?: string; withdrawalsRoot?: string; parentBeaconBlockRoot?: string; requestsHash?: string };
type TransactionMarkers = RpcTransaction & { accessList?: unknown[]; yParity?: string };
type ReceiptMarkers = RpcReceipt & { root?: string };

/** What every part of a block is checked against. */
interface BlockContext {
  number: bigint;
  hash: Hex;
  timestamp: bigint;
  /** London or later: transactions carry their type, receipts their effective gas price. */
  london: boolean;
}

/**
 * Checks a fetched block and its receipts and turns them into domain records. Anything malformed
 * or inconsistent (a receipt missing, out of order or of another block, a required member absent or
 * not well-formed hex, a member of the block's forks left out or null) is an InvalidNodeResponseError
 * naming the block and the member.
 */
export function decodeBlock(raw: RawBlockData): BlockBundle {
  const complain: Complain = complainAbout(`block ${raw.number}`);
  const fields = nodeFields<BlockMarkers>(raw.block, '', complain);
  const header = Object.assign(decodeHeader(fields), { uncles: fields.hashList('uncles') });
  const context: BlockContext = {
    number: header.number,
    hash: header.hash,
    timestamp: header.timestamp,
    london: header.baseFeePerGas !== null,
  };
  expectSame(context.number, raw.number, 'number', 'the block asked for', complain);

  const rawTransactions = fields.list('transactions');
  const receipts: unknown = raw.receipts;
  if (!Array.isArray(receipts)) complain('receipts', 'is not a list');
  if (receipts.length !== rawTransactions.length) {
    complain('receipts', `has ${receipts.length} receipts for ${rawTransactions.length} transactions`);
  }
  const decoded = rawTransactions.map((transaction, i) => decodeTransaction(transaction, receipts[i], i, context, complain));
  const transactions = decoded.map(({ transaction }) => transaction);
  const logs = decoded.flatMap(({ logs }) => logs);
  const withdrawals = (fields.optionalList('withdrawals') ?? []).map((withdrawal, i) =>
    decodeWithdrawal(withdrawal, `withdrawals[${i}]`, context, complain),
  );

  return {
    block: Object.assign(
      {},
      header,
      {
        transactionsCount: transactions.length,
        withdrawalsCount: withdrawals.length,
        blobTransactionsCount: transactions.filter((transaction) => transaction.type === 3).length,
        // Prague blocks (EIP-7685) commit to their requests; before it there are no deposit requests.
        beaconDepositsCount: fields.has('requestsHash') ? beaconDepositsCount(logs) : 0,
      },
      blockFees(transactions, header.baseFeePerGas),
    ),
    uncleBlocks: decodeUncles(raw.uncles, header, complain),
    transactions,
    withdrawals,
    logs,
    tokenTransfers: decodeTokenTransfers(logs),
    addresses: contractAddresses(transactions, logs).map((hash) => ({ hash, isContract: true })),
  };
}

type Header = Omit<
  BlockRecord,
  | 'uncles'
  | 'transactionsCount'
  | 'withdrawalsCount'
  | 'blobTransactionsCount'
  | 'beaconDepositsCount'
  | 'transactionFees'
  | 'burntFees'
  | 'priorityFee'
>;

/** What a block says of itself in its header, checked: a block's own, or an uncle's as the node sends it. */
function decodeHeader(fields: NodeFields<BlockMarkers>): Header {
  checkForkMembers(fields);
  return {
    number: fields.quantity('number'),
    hash: fields.hash('hash'),
    parentHash: fields.hash('parentHash'),
    timestamp: fields.quantity('timestamp'),
    miner: fields.address('miner'),
    nonce: fields.optionalData('nonce'),
    difficulty: fields.optionalQuantity('difficulty'),
    totalDifficulty: fields.optionalQuantity('totalDifficulty'),
    size: fields.optionalQuantity('size'),
    extraData: fields.data('extraData'),
    stateRoot: fields.hash('stateRoot'),
    gasLimit: fields.quantity('gasLimit'),
    gasUsed: fields.quantity('gasUsed'),
    baseFeePerGas: fields.optionalQuantity('baseFeePerGas'),
    blobGasUsed: fields.optionalQuantity('blobGasUsed'),
    excessBlobGas: fields.optionalQuantity('excessBlobGas'),
  };
}

/**
 * The uncle headers fetched for a block, checked against the hashes the block lists. An uncle comes
 * without its transactions (nodes send none with it): the block row Sextant keeps for it counts none,
 * and no fees.
 */
function decodeUncles(uncles: readonly RpcUncle[] | undefined, nephew: Pick<BlockRecord, 'uncles'>, complain: Complain): BlockRecord[] {
  const answers = uncles ?? [];
  if (answers.length !== nephew.uncles.length)
    complain('uncles', `has ${nephew.uncles.length} hashes, but ${answers.length} uncle headers were fetched`);
  return answers.map((uncle, i) => {
    const fields = nodeFields<BlockMarkers>(uncle, `uncle[${i}]`, complain);
    const header = decodeHeader(fields);
    expectSame(header.hash, nephew.uncles[i] as Hex, `uncle[${i}].hash`, `uncles[${i}]`, complain);
    return Object.assign(header, {
      // An uncle's own uncles are always none; some nodes leave the member out.
      uncles: fields.optionalList('uncles') === null ? [] : fields.hashList('uncles'),
      transactionsCount: 0,
      withdrawalsCount: 0,
      blobTransactionsCount: 0,
      beaconDepositsCount: 0,
      transactionFees: 0n,
      burntFees: 0n,
      priorityFee: 0n,
    });
  });
}

/**
 * A node leaves out the members of forks the block comes before, and sends those of the forks it
 * comes after: a header member of a later fork without those of the earlier ones, or a member that
 * is null, is an answer damaged on the way.
 */
function checkForkMembers(fields: NodeFields<BlockMarkers>): void {
  fields.refuseNull('difficulty', 'size', 'baseFeePerGas', 'blobGasUsed', 'excessBlobGas', 'withdrawals');
  if (fields.has('mixHash')) fields.require('the block has a mixHash', 'nonce', 'difficulty', 'size');
  if (fields.has('parentBeaconBlockRoot') || fields.has('blobGasUsed') || fields.has('excessBlobGas')) {
    fields.require('the block is of Cancun or later', 'blobGasUsed', 'excessBlobGas', 'baseFeePerGas');
  }
  if (fields.has('withdrawalsRoot')) fields.require('the block has a withdrawalsRoot', 'withdrawals', 'baseFeePerGas');
}

function decodeTransaction(
  transaction: unknown,
  receipt: unknown,
  position: number,
  block: BlockContext,
  complain: Complain,
): { transaction: TransactionRecord; logs: LogRecord[] } {
  const path = `transactions[${position}]`;
  const fields = nodeFields<TransactionMarkers>(transaction, path, complain);
  fields.refuseNull('type', 'gasPrice', 'maxFeePerGas', 'maxPriorityFeePerGas', 'maxFeePerBlobGas');
  const hash = fields.hash('hash');
  const index = fields.smallNumber('transactionIndex');
  expectSame(fields.hash('blockHash'), block.hash, `${path}.blockHash`, 'the block hash', complain);
  expectSame(fields.quantity('blockNumber'), block.number, `${path}.blockNumber`, 'the block number', complain);

  const receiptPath = `receipts[${position}]`;
  const receiptFields = nodeFields<ReceiptMarkers>(receipt, receiptPath, complain);
  receiptFields.refuseNull('status', 'effectiveGasPrice', 'blobGasUsed', 'blobGasPrice');
  const type = transactionType(fields, block, path);
  if (!receiptFields.has('root')) receiptFields.require('the receipt has no state root', 'status');
  if (block.london) receiptFields.require('the block is of London or later', 'effectiveGasPrice');
  const to = fields.optionalAddress('to');
  const createdContract = receiptFields.optionalAddress('contractAddress');
  if ((to === null) === (createdContract === null)) {
    complain(
      receiptPath,
      to === null ? `has no contractAddress for the creation ${path}` : `has a contractAddress for ${path}, which calls ${to}`,
    );
  }
  expectSame(receiptFields.hash('transactionHash'), hash, `${receiptPath}.transactionHash`, `the hash of ${path}`, complain);
  expectSame(receiptFields.hash('blockHash'), block.hash, `${receiptPath}.blockHash`, 'the block hash', complain);
  expectSame(receiptFields.quantity('blockNumber'), block.number, `${receiptPath}.blockNumber`, 'the block number', complain);
  expectSame(receiptFields.smallNumber('transactionIndex'), index, `${receiptPath}.transactionIndex`, `the index of ${path}`, complain);

  const status = receiptFields.optionalSmallNumber('status');
  if (status !== null && status !== 0 && status !== 1) complain(`${receiptPath}.status`, `is ${status}, neither 0 nor 1`);
  const logs = receiptFields.list('logs').map((log, i) => decodeLog(log, `${receiptPath}.logs[${i}]`, { hash, index }, block, complain));

  return {
    transaction: {
      hash,
      blockNumber: block.number,
      blockHash: block.hash,
      index,
      blockTimestamp: block.timestamp,
      from: fields.address('from'),
      to,
      createdContract,
      nonce: fields.quantity('nonce'),
      type,
      value: fields.quantity('value'),
      gasLimit: fields.quantity('gas'),
      gasPrice: receiptFields.optionalQuantity('effectiveGasPrice') ?? fields.optionalQuantity('gasPrice'),
      maxFeePerGas: fields.optionalQuantity('maxFeePerGas'),
      maxPriorityFeePerGas: fields.optionalQuantity('maxPriorityFeePerGas'),
      input: fields.data('input'),
      status,
      gasUsed: receiptFields.quantity('gasUsed'),
      cumulativeGasUsed: receiptFields.quantity('cumulativeGasUsed'),
      maxFeePerBlobGas: fields.optionalQuantity('maxFeePerBlobGas'),
      // Some nodes (anvil) repeat the block's blob gas price on every receipt: it belongs to blob transactions only.
      blobGasUsed: type === 3 ? receiptFields.quantity('blobGasUsed') : null,
      blobGasPrice: type === 3 ? receiptFields.quantity('blobGasPrice') : null,
      blobVersionedHashes: type === 3 ? fields.hashList('blobVersionedHashes') : [],
      authorizations:
        type === 4
          ? fields.list('authorizationList').map((entry, i) => decodeAuthorization(entry, `${path}.authorizationList[${i}]`, complain))
          : [],
    },
    logs,
  };
}

/** The transaction's type, checked against the members that type must carry. */
function transactionType(fields: NodeFields<TransactionMarkers>, block: BlockContext, path: string): number | null {
  if (block.london || fields.has('accessList') || fields.has('maxFeePerGas') || fields.has('yParity')) {
    fields.require(block.london ? 'the block is of London or later' : `${path} is a typed transaction`, 'type');
  }
  const type = fields.optionalSmallNumber('type');
  if (type === null || type < 2) fields.require(`${path} is a ${type === null ? 'legacy' : `type ${type}`} transaction`, 'gasPrice');
  else if (type <= 4) fields.require(`${path} is of type ${type}`, 'maxFeePerGas', 'maxPriorityFeePerGas');
  if (type === 3) fields.require(`${path} is a blob transaction`, 'maxFeePerBlobGas', 'blobVersionedHashes');
  if (type === 4) fields.require(`${path} is a set-code transaction`, 'authorizationList');
  return type;
}

function decodeLog(
  log: unknown,
  path: string,
  transaction: { hash: Hex; index: number },
  block: BlockContext,
  complain: Complain,
): LogRecord {
  const fields = nodeFields<RpcLog>(log, path, complain);
  // Nodes repeat where the log belongs; when they do, it must agree with the receipt it came in.
  const transactionHash = fields.optionalData('transactionHash');
  if (transactionHash !== null) expectSame(transactionHash, transaction.hash, `${path}.transactionHash`, 'its receipt', complain);
  const blockHash = fields.optionalData('blockHash');
  if (blockHash !== null) expectSame(blockHash, block.hash, `${path}.blockHash`, 'the block hash', complain);
  return {
    blockHash: block.hash,
    blockNumber: block.number,
    transactionHash: transaction.hash,
    transactionIndex: transaction.index,
    logIndex: fields.smallNumber('logIndex'),
    address: fields.address('address'),
    topics: fields.hashList('topics'),
    data: fields.data('data'),
  };
}

function decodeWithdrawal(withdrawal: unknown, path: string, block: BlockContext, complain: Complain): WithdrawalRecord {
  const fields = nodeFields<RpcWithdrawal>(withdrawal, path, complain);
  return {
    blockHash: block.hash,
    blockNumber: block.number,
    index: fields.quantity('index'),
    validatorIndex: fields.quantity('validatorIndex'),
    address: fields.address('address'),
    amount: fields.quantity('amount') * WEI_PER_GWEI,
  };
}

/**
 * Log emitters and contracts created by transactions that did not fail: both ran code at that
 * address. A failed creation reports an address too, but leaves no code there.
 */
function contractAddresses(transactions: readonly TransactionRecord[], logs: readonly LogRecord[]): Address[] {
  const addresses = new Set<Address>();
  for (const { createdContract, status } of transactions) {
    if (createdContract !== null && status !== 0) addresses.add(createdContract);
  }
  for (const log of logs) addresses.add(log.address);
  return [...addresses];
}

function expectSame<T extends bigint | number | string>(actual: T, expected: T, field: string, what: string, complain: Complain): void {
  if (actual !== expected) complain(field, `is ${actual}, which does not match ${what} (${expected})`);
}
