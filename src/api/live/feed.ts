import type { FastifyBaseLogger } from 'fastify';
import type { Address, Hex } from '../../model.js';
import type { ChainChange } from '../../store/notifications.js';
import { type BlockRange, countTransactionsBetween, listConsensusBlocksBetween } from '../../store/read/blocks.js';
import { readChainTiming } from '../../store/read/chain.js';
import { listCoinBalancesAt } from '../../store/read/coin-balances.js';
import { readCoinMarket } from '../../store/read/market.js';
import { countTokenTransfersBetween, findTransactionsBetween } from '../../store/read/live.js';
import { findVerificationJob } from '../../store/read/smart-contracts.js';
import type { Db } from '../../store/read/sql.js';
import { listAddressesTokenTransfersBetween } from '../../store/read/token-transfers.js';
import { listAddressesTransactionsBetween } from '../../store/read/transactions.js';
import { readIndexingStatus } from '../indexing-status.js';
import { waitForReplay } from '../replay.js';
import type { ApiContext } from '../route.js';
import { blockView } from '../views/block.js';
import { coinBalanceView } from '../views/coin-balance.js';
import { listedTokenTransfers } from '../token-transfer-lists.js';
import { listedTransactions } from '../transaction-lists.js';
import type { LiveHub } from './hub.js';
import { addressTopicPrefixes, topicAddress, topicTransactionHash, topics, transactionTopicPrefix } from './topics.js';

/** What the indexing status is measured against: the indexer beside the API, if any, and its settings. */
export type IndexingContext = Pick<ApiContext, 'indexerStatus' | 'indexing'>;

/** The newest blocks of one write pushed as new_block: a catch-up batch is not replayed block by block. */
const blocksPerChange = 10;
/** The newest transactions, and transfers, of one write pushed to an address's topics. */
const itemsPerChange = 50;
/** Changes waiting to be read; past this, the oldest waiting are skipped (a client then misses them, as after a reconnect). */
const maxWaiting = 100;

/** The topics, as clients spelled them, of each watched address (lower case) under one prefix. */
function watchedAddresses(hub: LiveHub, prefix: string): Map<Address, string[]> {
  const byAddress = new Map<Address, string[]>();
  for (const topic of hub.watchedWithPrefix(prefix)) {
    const address = topicAddress(topic, prefix);
    if (address === null) continue;
    byAddress.set(address as Address, [...(byAddress.get(address as Address) ?? []), topic]);
  }
  return byAddress;
}

/** The topics, as clients spelled them, of each watched transaction (lower case). */
function watchedTransactions(hub: LiveHub): Map<Hex, string[]> {
  const byHash = new Map<Hex, string[]>();
  for (const topic of hub.watchedWithPrefix(transactionTopicPrefix)) {
    const hash = topicTransactionHash(topic) as Hex | null;
    if (hash !== null) byHash.set(hash, [...(byHash.get(hash) ?? []), topic]);
  }
  return byHash;
}

/** Pushes items to the topics of every watched address among each item's parties, newest first, each item once per address. */
function pushByParty<T>(
  hub: LiveHub,
  watched: Map<Address, string[]>,
  items: readonly T[],
  parties: (item: T) => (string | null)[],
  event: string,
  payload: (items: T[]) => unknown,
): void {
  const byAddress = new Map<Address, T[]>();
  for (const item of items) {
    for (const party of new Set(parties(item).map((p) => p?.toLowerCase() as Address | undefined))) {
      if (party === undefined || !watched.has(party)) continue;
      byAddress.set(party, [...(byAddress.get(party) ?? []), item]);
    }
  }
  for (const [address, addressItems] of byAddress) {
    for (const topic of watched.get(address) ?? []) hub.broadcast(topic, event, payload(addressItems));
  }
}

async function pushBlocks(db: Db, hub: LiveHub, range: BlockRange): Promise<void> {
  const miners = watchedAddresses(hub, addressTopicPrefixes.miner);
  if (!hub.watched(topics.newBlock) && miners.size === 0) return;
  const [blocks, timing] = await Promise.all([listConsensusBlocksBetween(db, range, blocksPerChange), readChainTiming(db)]);
  // Oldest first, as they were mined; Blockscout sends the mean block time in milliseconds, as a string.
  for (const block of blocks.reverse()) {
    const payload = { average_block_time: String(timing.averageBlockTimeMs ?? 0), block: blockView(block) };
    hub.broadcast(topics.newBlock, 'new_block', payload);
    for (const topic of miners.get(block.miner.hash.toLowerCase() as Address) ?? []) hub.broadcast(topic, 'new_block', payload);
  }
}

async function pushTransactionCount(db: Db, hub: LiveHub, range: BlockRange): Promise<void> {
  if (!hub.watched(topics.newTransaction)) return;
  const count = await countTransactionsBetween(db, range);
  if (count > 0) hub.broadcast(topics.newTransaction, 'transaction', { transaction: count });
}

async function pushAddressActivity(db: Db, hub: LiveHub, range: BlockRange): Promise<void> {
  const watched = watchedAddresses(hub, addressTopicPrefixes.address);
  if (watched.size === 0) return;
  const addresses = [...watched.keys()];
  const [transactions, transfers, timing] = await Promise.all([
    listAddressesTransactionsBetween(db, range, addresses, itemsPerChange),
    listAddressesTokenTransfersBetween(db, range, addresses, itemsPerChange),
    readChainTiming(db),
  ]);
  const views = new Map((await listedTransactions(db, transactions, timing)).map((view, i) => [transactions[i]!, view]));
  const transferViews = new Map((await listedTokenTransfers(db, transfers)).map((view, i) => [transfers[i]!, view]));
  pushByParty(
    hub,
    watched,
    transactions,
    (t) => [t.from.hash, t.to?.hash ?? null, t.createdContract?.hash ?? null],
    'transaction',
    (items) => ({ transactions: items.map((t) => views.get(t)!) }),
  );
  pushByParty(
    hub,
    watched,
    transfers,
    (t) => [t.from.hash, t.to.hash],
    'token_transfer',
    (items) => ({ token_transfers: items.map((t) => transferViews.get(t)!) }),
  );
}

/**
 * Blockscout's index_status on its two indexing topics: the share of the blocks indexed, and of the
 * blocks traced, each with whether indexing is finished, as /main-page/indexing-status says them
 * (the ratio a decimal string); nothing on the second when traces are not indexed.
 */
async function pushIndexStatus(db: Db, hub: LiveHub, indexing: IndexingContext): Promise<void> {
  const [blocks, traces] = [hub.watched(topics.blocksIndexing), hub.watched(topics.tracesIndexing)];
  if (!blocks && !traces) return;
  const status = await readIndexingStatus({ db, ...indexing });
  if (blocks) {
    hub.broadcast(topics.blocksIndexing, 'index_status', {
      ratio: String(status.indexed_blocks_ratio),
      finished: status.finished_indexing_blocks,
    });
  }
  if (traces && status.indexed_internal_transactions_ratio !== null) {
    hub.broadcast(topics.tracesIndexing, 'index_status', {
      ratio: String(status.indexed_internal_transactions_ratio),
      finished: status.finished_indexing,
    });
  }
}

/** Blockscout's token_transfer on a token's topic: how many of its transfers the write brought. */
async function pushTokenTransfers(db: Db, hub: LiveHub, range: BlockRange): Promise<void> {
  const watched = watchedAddresses(hub, addressTopicPrefixes.token);
  if (watched.size === 0) return;
  for (const [token, count] of await countTokenTransfersBetween(db, range, [...watched.keys()])) {
    for (const topic of watched.get(token) ?? []) hub.broadcast(topic, 'token_transfer', { token_transfer: count });
  }
}

/** Blockscout's collated on a transaction's topic, once the transaction is in a written block. */
async function pushCollated(db: Db, hub: LiveHub, range: BlockRange): Promise<void> {
  const watched = watchedTransactions(hub);
  if (watched.size === 0) return;
  for (const hash of await findTransactionsBetween(db, range, [...watched.keys()])) {
    for (const topic of watched.get(hash) ?? []) hub.broadcast(topic, 'collated', {});
  }
}

async function pushBalances(db: Db, hub: LiveHub, blockNumber: number): Promise<void> {
  const watched = watchedAddresses(hub, addressTopicPrefixes.address);
  if (watched.size === 0) return;
  const [balances, market] = await Promise.all([listCoinBalancesAt(db, blockNumber, [...watched.keys()]), readCoinMarket(db)]);
  const exchangeRate = market?.fiatValue ?? null;
  for (const balance of balances) {
    const value = balance.value.toString();
    for (const topic of watched.get(balance.address.toLowerCase() as Address) ?? []) {
      hub.broadcast(topic, 'balance', { balance: value, block_number: blockNumber, exchange_rate: exchangeRate });
      hub.broadcast(topic, 'current_coin_balance', { coin_balance: value, block_number: blockNumber, exchange_rate: exchangeRate });
      hub.broadcast(topic, 'coin_balance', { coin_balance: coinBalanceView(balance) });
    }
  }
}

/**
 * A verification's outcome, to the form that waits for it on the contract's topic: `verification_result`
 * (`{status: "success"}`, or `"error"` with the errors by field), then, on success,
 * `smart_contract_was_verified`, on which the contract page reloads.
 */
async function pushVerification(db: Db, hub: LiveHub, change: { address: string; job: string }): Promise<void> {
  const topicsOfAddress = watchedAddresses(hub, addressTopicPrefixes.address).get(change.address.toLowerCase() as Address);
  if (topicsOfAddress === undefined) return;
  const job = await findVerificationJob(db, change.job);
  if (job === null || job.status === 'pending') return;
  for (const topic of topicsOfAddress) {
    if (job.status === 'success') {
      hub.broadcast(topic, 'verification_result', { status: 'success' });
      hub.broadcast(topic, 'smart_contract_was_verified', {});
    } else {
      hub.broadcast(topic, 'verification_result', { status: 'error', errors: job.errors ?? {} });
    }
  }
}

async function push(db: Db, hub: LiveHub, indexing: IndexingContext, change: ChainChange): Promise<void> {
  switch (change.kind) {
    case 'blocks':
      await pushBlocks(db, hub, change);
      await pushTransactionCount(db, hub, change);
      await pushAddressActivity(db, hub, change);
      await pushTokenTransfers(db, hub, change);
      await pushCollated(db, hub, change);
      await pushIndexStatus(db, hub, indexing);
      return;
    case 'traced':
      return pushIndexStatus(db, hub, indexing);
    case 'pending':
      hub.broadcast(topics.newPendingTransaction, 'pending_transaction', { pending_transaction: change.added });
      return;
    case 'balances':
      return pushBalances(db, hub, change.blockNumber);
    case 'verification':
      return pushVerification(db, hub, change);
    case 'retracted':
      // Nothing to push: the node's branch, written next, is pushed as new blocks.
      return;
  }
}

/**
 * What turns the writers' notifications into pushes: each change is read once, whatever the number of
 * clients, one change at a time, in the order they came.
 */
export function liveFeed(
  db: Db,
  hub: LiveHub,
  indexing: IndexingContext,
  log: FastifyBaseLogger,
): (change: ChainChange, walPosition: string | null) => void {
  const waiting: { change: ChainChange; walPosition: string | null }[] = [];
  let running = false;
  const send = async (change: ChainChange, walPosition: string | null): Promise<void> => {
    if (walPosition !== null) await waitForReplay(db, walPosition);
    await push(db, hub, indexing, change);
  };
  const drain = async (): Promise<void> => {
    running = true;
    for (let next = waiting.shift(); next !== undefined; next = waiting.shift()) {
      const { change, walPosition } = next;
      await send(change, walPosition).catch((error: Error) => log.warn(`live update of ${change.kind} not sent: ${error.message}`));
    }
    running = false;
  };
  return (change, walPosition) => {
    waiting.push({ change, walPosition });
    if (waiting.length > maxWaiting) waiting.shift();
    if (!running) void drain();
  };
}
