/**
 * The topics a client may join, as Blockscout's channels accept them (BlockChannel, TransactionChannel,
 * AddressChannel, TokenChannel of its API v2 socket), and the topics Sextant pushes to.
 */
export const topics = {
  newBlock: 'blocks:new_block',
  /** The share of the blocks indexed. */
  blocksIndexing: 'blocks:indexing',
  /** The share of the blocks traced. */
  tracesIndexing: 'blocks:indexing_internal_transactions',
  newTransaction: 'transactions:new_transaction',
  newPendingTransaction: 'transactions:new_pending_transaction',
} as const;

/**
 * Topics of one address: `blocks:` (the blocks it mined), `addresses:` (its transactions, transfers
 * and balance) and `tokens:` (the transfers of the token it is).
 */
export const addressTopicPrefixes = { miner: 'blocks:', address: 'addresses:', token: 'tokens:' } as const;

/** The topic of one transaction, by hash: `transactions:0x…` (it was mined). */
export const transactionTopicPrefix = 'transactions:';

const fixedTopics = new Set<string>([
  topics.newBlock,
  topics.blocksIndexing,
  topics.tracesIndexing,
  topics.newTransaction,
  topics.newPendingTransaction,
  'transactions:stats',
]);

const addressPattern = /^0x[0-9a-fA-F]{40}$/;
const hashPattern = /^0x[0-9a-fA-F]{64}$/;

/** Null when the topic can be joined, else the reason the join is refused (Phoenix's for a topic no channel serves). */
export function joinRefusal(topic: string): string | null {
  if (fixedTopics.has(topic)) return null;
  const [prefix, rest] = [topic.slice(0, topic.indexOf(':') + 1), topic.slice(topic.indexOf(':') + 1)];
  switch (prefix) {
    case 'blocks:':
    case 'addresses:':
    case 'tokens:':
      return addressPattern.test(rest) ? null : 'invalid address hash';
    case 'transactions:':
      return hashPattern.test(rest) ? null : 'invalid transaction hash';
    default:
      return 'unmatched topic';
  }
}

/** The address an address topic names, in lower case; null for any other topic. */
export function topicAddress(topic: string, prefix: string): string | null {
  if (!topic.startsWith(prefix)) return null;
  const rest = topic.slice(prefix.length);
  return addressPattern.test(rest) ? rest.toLowerCase() : null;
}

/** The transaction hash a transaction topic names, in lower case; null for any other topic. */
export function topicTransactionHash(topic: string): string | null {
  if (!topic.startsWith(transactionTopicPrefix)) return null;
  const rest = topic.slice(transactionTopicPrefix.length);
  return hashPattern.test(rest) ? rest.toLowerCase() : null;
}
