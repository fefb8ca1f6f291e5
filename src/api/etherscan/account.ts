import type { Address, TokenType } from '../../model.js';
import {
  type EtherscanInternalTransactionItem,
  type EtherscanTokenTransferItem,
  type EtherscanTransactionItem,
  findFungibleTokenBalance,
  findLatestCoinBalances,
  listAddressInternalTransactionsWindow,
  listAddressTransactionsWindow,
  listHeldTokens,
  listMinedBlocksWindow,
  listTokenTransfersWindow,
  listTransactionInternalTransactionsWindow,
} from '../../store/read/etherscan.js';
import { type Action, type ModuleActions, listAction } from './action.js';
import { failure, ok } from './envelope.js';
import { addressOf, isAnswer, listWindow, maxResultWindow, parseAddress, parseHash } from './params.js';

/** The account module: balances, and an address's transactions, internal transactions, token transfers, tokens and blocks. */

/** balancemulti reads at most this many of the addresses listed. */
const maxBalanceAddresses = 20;
const tokensListed = 10_000;

const orEmpty = (value: string | null | undefined): string => value ?? '';

/** balance answers one address's balance alone, several as a list; balancemulti always a list. */
const balances =
  (asList: boolean): Action =>
  async (params, { db }) => {
    const listed = params.get('address');
    if (listed === undefined) return failure("Query parameter 'address' is required");
    const parsed = listed.split(',').slice(0, maxBalanceAddresses).map(parseAddress);
    if (parsed.some((address) => address === null)) return failure('Invalid address hash');
    const addresses = [...new Set(parsed as Address[])];
    const balances = await findLatestCoinBalances(db, addresses);
    const balanceOf = (address: Address) => (balances.get(address) ?? 0n).toString();
    if (!asList && parsed.length === 1) return ok(balanceOf(addresses[0]!));
    return ok(addresses.map((address) => ({ account: address, balance: balanceOf(address), stale: false })));
  };

export function transactionView(t: EtherscanTransactionItem) {
  const succeeded = t.status !== 0;
  return {
    blockNumber: String(t.blockNumber),
    timeStamp: String(t.timestamp),
    hash: t.hash,
    nonce: t.nonce,
    blockHash: t.blockHash,
    transactionIndex: String(t.index),
    from: t.from,
    to: orEmpty(t.to),
    value: t.value,
    gas: t.gas,
    gasPrice: orEmpty(t.gasPrice),
    isError: succeeded ? '0' : '1',
    txreceipt_status: t.status === null ? '' : String(t.status),
    input: t.input,
    contractAddress: orEmpty(t.createdContract),
    cumulativeGasUsed: t.cumulativeGasUsed,
    gasUsed: t.gasUsed,
    confirmations: String(t.confirmations),
    methodId: t.input.length >= 10 ? t.input.slice(0, 10) : '0x',
  };
}

const txlist: Action = async (params, { db }) => {
  const address = addressOf(params, 'address', 'Invalid address format');
  if (typeof address !== 'string') return address;
  const window = listWindow(params);
  if (isAnswer(window)) return window;
  const transactions = await listAddressTransactionsWindow(db, address, window);
  return transactions.length === 0 ? failure('No transactions found', []) : ok(transactions.map(transactionView));
};

function internalTransactionView(i: EtherscanInternalTransactionItem) {
  return {
    blockNumber: String(i.blockNumber),
    timeStamp: String(i.timestamp),
    from: i.from,
    to: orEmpty(i.to),
    value: i.value,
    contractAddress: orEmpty(i.createdContract),
    transactionHash: i.transactionHash,
    index: String(i.index),
    input: orEmpty(i.input),
    type: i.type,
    callType: orEmpty(i.callType),
    gas: orEmpty(i.gas),
    gasUsed: orEmpty(i.gasUsed),
    isError: i.error === null ? '0' : '1',
    errCode: orEmpty(i.error),
  };
}

const internalList = (items: EtherscanInternalTransactionItem[]) =>
  items.length === 0 ? failure('No internal transactions found', []) : ok(items.map(internalTransactionView));

const txlistinternal: Action = async (params, { db }) => {
  const transactionHash = params.get('txhash');
  const address = params.get('address');
  if (transactionHash !== undefined) {
    const hash = parseHash(transactionHash);
    if (hash === null) return failure('Invalid txhash format');
    return internalList(await listTransactionInternalTransactionsWindow(db, hash, maxResultWindow));
  }
  if (address === undefined) return failure('Query parameter txhash or address is required');
  const parsed = parseAddress(address);
  if (parsed === null) return failure('Invalid address format');
  const window = listWindow(params);
  if (isAnswer(window)) return window;
  return internalList(await listAddressInternalTransactionsWindow(db, parsed, window));
};

function tokenTransferView(t: EtherscanTokenTransferItem, type: TokenType) {
  const common = {
    blockNumber: String(t.blockNumber),
    timeStamp: String(t.timestamp),
    hash: t.transactionHash,
    nonce: t.nonce,
    blockHash: t.blockHash,
    from: t.from,
    contractAddress: t.token,
    to: t.to,
    logIndex: String(t.logIndex),
    tokenName: t.tokenName,
    tokenSymbol: t.tokenSymbol,
    tokenDecimal: orEmpty(t.tokenDecimals),
    transactionIndex: String(t.transactionIndex),
    gas: t.gas,
    gasPrice: orEmpty(t.gasPrice),
    gasUsed: t.gasUsed,
    cumulativeGasUsed: t.cumulativeGasUsed,
    input: t.input,
    confirmations: String(t.confirmations),
  };
  if (type === 'ERC-20') return Object.assign(common, { value: orEmpty(t.amount) });
  if (type === 'ERC-721') return Object.assign(common, { tokenID: orEmpty(t.tokenId) });
  return Object.assign(common, { tokenID: orEmpty(t.tokenId), tokenValue: orEmpty(t.amount) });
}

/** tokentx, tokennfttx, token1155tx: an address's transfers of one token type, of one token (contractaddress) or any. */
const tokenTransfers =
  (type: TokenType): Action =>
  async (params, { db }) => {
    const given = params.get('address');
    const givenToken = params.get('contractaddress');
    if (given === undefined && givenToken === undefined) return failure('Query parameter address is required');
    const address = given === undefined ? null : parseAddress(given);
    if (given !== undefined && address === null) return failure('Invalid address format');
    const token = givenToken === undefined ? null : parseAddress(givenToken);
    if (givenToken !== undefined && token === null) return failure('Invalid contractaddress format');
    const window = listWindow(params);
    if (isAnswer(window)) return window;
    const transfers = await listTokenTransfersWindow(db, { address, token, type }, window);
    return transfers.length === 0 ? failure('No token transfers found', []) : ok(transfers.map((t) => tokenTransferView(t, type)));
  };

const tokenbalance: Action = async (params, { db }) => {
  const missing = ['contractaddress', 'address'].filter((name) => !params.has(name));
  if (missing.length > 0) return failure(`Required query parameters missing: ${missing.join(', ')}`);
  const token = parseAddress(params.get('contractaddress'));
  if (token === null) return failure('Invalid contractaddress format');
  const address = parseAddress(params.get('address'));
  if (address === null) return failure('Invalid address format');
  return ok((await findFungibleTokenBalance(db, address, token)).toString());
};

const tokenlist: Action = async (params, { db }) => {
  const given = params.get('address');
  if (given === undefined) return failure('Query parameter address is required');
  const address = parseAddress(given);
  if (address === null) return failure('Invalid address format');
  const tokens = await listHeldTokens(db, address, tokensListed);
  if (tokens.length === 0) return failure('No tokens found', []);
  return ok(
    tokens.map((t) => ({
      balance: t.balance,
      contractAddress: t.token,
      name: t.name,
      decimals: orEmpty(t.decimals),
      symbol: t.symbol,
      type: t.type,
      ...(t.tokenId === null ? {} : { id: t.tokenId }),
    })),
  );
};

const getminedblocks: Action = async (params, { db }) => {
  const address = addressOf(params, 'address', 'Invalid address format');
  if (typeof address !== 'string') return address;
  const window = listWindow(params);
  if (isAnswer(window)) return window;
  const blocks = await listMinedBlocksWindow(db, address, window);
  if (blocks.length === 0) return failure('No blocks found', []);
  return ok(blocks.map((b) => ({ blockNumber: String(b.number), timeStamp: String(b.timestamp) })));
};

export const accountActions: ModuleActions = {
  balance: balances(false),
  balancemulti: balances(true),
  txlist: listAction(txlist),
  txlistinternal: listAction(txlistinternal),
  tokentx: listAction(tokenTransfers('ERC-20')),
  tokennfttx: listAction(tokenTransfers('ERC-721')),
  token1155tx: listAction(tokenTransfers('ERC-1155')),
  tokenbalance,
  tokenlist: listAction(tokenlist),
  getminedblocks: listAction(getminedblocks),
};
