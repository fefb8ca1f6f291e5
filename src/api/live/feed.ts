import type { FastifyBaseLogger } from 'fastify';
import type { Address } from '../../model.js';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ChainChange } from '../../store/notifications.js';
import { type BlockRange, countTransactionsBetween, listConsensusBlocksBetween } from '../../store/read/blocks.js';
import { readChainTiming } from '../../store/read/chain.js';
import { listCoinBalancesAt } from '../../store/read/coin-balances.js';
import { hasReplayed } from '../../store/read/replication.js';
import type { Db } from '../../store/read/sql.js';
import { listAddressesTokenTransfersBetween } from '../../store/read/token-transfers.js';
import { listAddressesTransactionsBetween } from '../../store/read/transactions.js';
import { blockView } from '../views/block.js';
import { coinBalanceView } from '../views/coin-balance.js';
import { tokenTransferView } from '../views/token-transfer.js';
import { transactionView } from '../views/transaction.js';
import type { LiveHub } from './hub.js';
import { addressTopicPrefixes, topicAddress, topics } from './topics.js';

/** The newest blocks of one write pushed as new_block: a catch-up batch is not replayed block by block. */
const blocksPerChange = 10;
/** The newest transactions, and transfers, of one write pushed to an address's topics. */
const itemsPerChange = 50;
/** Changes waiting to be read; past this, the oldest waiting are skipped (a client then misses them, as after a reconnect). */
const maxWaiting = 100;
/** How long a change waits for a streaming replica to replay it, and how often that is checked. */
const replayWaitMs = 10_000;
const replayPollMs = 20;

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
  pushByParty(
    hub,
    watched,
    transactions,
    (t) => [t.from.hash, t.to?.hash ?? null, t.createdContract?.hash ?? null],
    'transaction',
    (items) => ({ transactions: items.map((t) => transactionView(t, timing)) }),
  );
  pushByParty(
    hub,
    watched,
    transfers,
    (t) => [t.from.hash, t.to.hash],
    'token_transfer',
    (items) => ({ token_transfers: items.map(tokenTransferView) }),
  );
}

async function pushBalances(db: Db, hub: LiveHub, blockNumber: number): Promise<void> {
  const watched = watchedAddresses(hub, addressTopicPrefixes.address);
  if (watched.size === 0) return;
  for (const balance of await listCoinBalancesAt(db, blockNumber, [...watched.keys()])) {
    const value = balance.value.toString();
    for (const topic of watched.get(balance.address.toLowerCase() as Address) ?? []) {
      // No exchange rate: Sextant reads no market data.
      hub.broadcast(topic, 'balance', { balance: value, block_number: blockNumber, exchange_rate: null });
      hub.broadcast(topic, 'current_coin_balance', { coin_balance: value, block_number: blockNumber, exchange_rate: null });
      hub.broadcast(topic, 'coin_balance', { coin_balance: coinBalanceView(balance) });
    }
  }
}

/**
 * Waits until the database read shows the writes up to `walPosition`: the notification comes from the
 * primary at its commit, and a streaming replica replays it a moment later. Past replayWaitMs the
 * change is read anyway (what is not there yet is then missed, as after a reconnect).
 */
async function replayed(db: Db, walPosition: string): Promise<void> {
  const deadline = Date.now() + replayWaitMs;
  while (!(await hasReplayed(db, walPosition)) && Date.now() < deadline) await sleep(replayPollMs);
}

async function push(db: Db, hub: LiveHub, change: ChainChange): Promise<void> {
  switch (change.kind) {
    case 'blocks':
      await pushBlocks(db, hub, change);
      await pushTransactionCount(db, hub, change);
      await pushAddressActivity(db, hub, change);
      return;
    case 'pending':
      hub.broadcast(topics.newPendingTransaction, 'pending_transaction', { pending_transaction: change.added });
      return;
    case 'balances':
      return pushBalances(db, hub, change.blockNumber);
  }
}

/**
 * What turns the writers' notifications into pushes: each change is read once, whatever the number of
 * clients, one change at a time, in the order they came.
 */
export function liveFeed(db: Db, hub: LiveHub, log: FastifyBaseLogger): (change: ChainChange, walPosition: string | null) => void {
  const waiting: { change: ChainChange; walPosition: string | null }[] = [];
  let running = false;
  const send = async (change: ChainChange, walPosition: string | null): Promise<void> => {
    if (walPosition !== null) await replayed(db, walPosition);
    await push(db, hub, change);
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
