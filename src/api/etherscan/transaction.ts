import type { Hex } from '../../model.js';
import { readIndexedHead } from '../../store/read/chain.js';
import { listTransactionLogs } from '../../store/read/logs.js';
import { listTransactionTokenTransfers } from '../../store/read/token-transfers.js';
import { type MinedTransactionItem, findTransaction } from '../../store/read/transactions.js';
import type { ApiContext } from '../route.js';
import type { Action, ModuleActions } from './action.js';
import { type ActionAnswer, failure, ok } from './envelope.js';
import { type ActionParams, parseHash } from './params.js';

/** The transaction module: a mined transaction's details, its receipt status and its error. */

/** A transaction's logs and token transfers that gettxinfo lists, at most. */
const listedPerTransaction = 10_000;

/** The txhash parameter, or the answer that refuses it. */
function transactionHash(params: ActionParams): Hex | ActionAnswer {
  const given = params.get('txhash');
  if (given === undefined) return failure('Query parameter txhash is required');
  return parseHash(given) ?? failure('Invalid txhash format');
}

async function minedTransaction(db: ApiContext['db'], hash: Hex): Promise<MinedTransactionItem | null> {
  const found = await findTransaction(db, hash);
  return found === null || found.blockNumber === null ? null : found;
}

const seconds = (iso: string) => String(Math.floor(Date.parse(iso) / 1000));

const gettxinfo: Action = async (params, { db }) => {
  const hash = transactionHash(params);
  if (typeof hash !== 'string') return hash;
  const transaction = await minedTransaction(db, hash);
  if (transaction === null) return failure('Transaction not found');
  const position = { hash, blockNumber: transaction.blockNumber, index: transaction.index };
  const [head, logs, transfers] = await Promise.all([
    readIndexedHead(db),
    listTransactionLogs(db, hash, null, listedPerTransaction),
    listTransactionTokenTransfers(db, position, [], null, listedPerTransaction),
  ]);
  return ok({
    blockNumber: String(transaction.blockNumber),
    timeStamp: seconds(transaction.timestamp),
    hash: transaction.hash,
    confirmations: String((head ?? transaction.blockNumber) - transaction.blockNumber),
    success: transaction.status !== 0,
    from: transaction.from.hash,
    to: transaction.to?.hash ?? '',
    value: transaction.value.toString(),
    input: transaction.input,
    gasLimit: transaction.gasLimit.toString(),
    gasUsed: transaction.gasUsed?.toString() ?? '',
    gasPrice: transaction.gasPrice?.toString() ?? '',
    index: String(transaction.index),
    nonce: String(transaction.nonce),
    contractAddress: transaction.createdContract?.hash ?? '',
    revertReason: transaction.revertReason ?? '',
    logs: (logs !== null && logs !== 'pending' ? logs.logs : []).map((log) => ({
      address: log.address.hash,
      topics: log.topics.filter((topic) => topic !== null),
      data: log.data,
      index: String(log.logIndex),
    })),
    tokenTransfers: [...transfers].reverse().map((t) => ({
      amount: t.amount.toString(),
      logIndex: String(t.logIndex),
      fromAddress: t.from.hash,
      toAddress: t.to.hash,
      tokenContractAddress: t.token.address,
      tokenName: t.token.name ?? '',
      tokenSymbol: t.token.symbol ?? '',
      decimals: t.token.decimals?.toString() ?? '',
      ...(t.tokenId === null ? {} : { tokenId: t.tokenId.toString() }),
    })),
  });
};

/** "1" succeeded, "0" failed, "" unknown (not mined, or mined before receipts had a status). */
const gettxreceiptstatus: Action = async (params, { db }) => {
  const hash = transactionHash(params);
  if (typeof hash !== 'string') return hash;
  const transaction = await minedTransaction(db, hash);
  return ok({ status: transaction?.status == null ? '' : String(transaction.status) });
};

/** Whether the transaction failed, and why when the trace said. */
const getstatus: Action = async (params, { db }) => {
  const hash = transactionHash(params);
  if (typeof hash !== 'string') return hash;
  const transaction = await minedTransaction(db, hash);
  if (transaction === null || transaction.status !== 0) return ok({ isError: '0', errDescription: '' });
  return ok({ isError: '1', errDescription: transaction.error ?? '' });
};

export const transactionActions: ModuleActions = { gettxinfo, gettxreceiptstatus, getstatus };
