import type { ChainTiming } from '../store/read/chain.js';
import { readCoinMarket } from '../store/read/market.js';
import type { Db } from '../store/read/sql.js';
import type { TransactionItem } from '../store/read/transactions.js';
import { decodeTransactionInputs } from './contract-decoding.js';
import { type Transaction, transactionView } from './views/transaction.js';

/**
 * Transactions as the lists (and the websocket's pushes) render them, their inputs decoded in one read
 * of the ABIs, each with the coin's current price.
 */
export async function listedTransactions(db: Db, items: readonly TransactionItem[], timing: ChainTiming): Promise<Transaction[]> {
  const [decoded, coin] = await Promise.all([decodeTransactionInputs(db, items), readCoinMarket(db)]);
  return items.map((item, i) => transactionView(item, timing, decoded[i]!, coin?.fiatValue ?? null));
}
