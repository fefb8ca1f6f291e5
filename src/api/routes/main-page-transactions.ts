import { Type } from '@sinclair/typebox';
import { readChainTiming } from '../../store/read/chain.js';
import { listMinedTransactions } from '../../store/read/transactions.js';
import type { ApiRoute } from '../route.js';
import { headChanges } from '../shared-answers.js';
import { listedTransactions } from '../transaction-lists.js';
import { TransactionSchema } from '../views/transaction.js';

/** How many transactions the home page shows, as Blockscout. */
const homeTransactions = 6;

/** The home page's newest mined transactions: the head of E2. */
export const mainPageTransactionsRoute: ApiRoute = (app, { db }) => {
  app.get(
    '/api/v2/main-page/transactions',
    {
      schema: { response: { 200: Type.Array(TransactionSchema) } },
      // Traces bring the transactions' internal failures; a verification, their contracts' names and decoded calls.
      config: { sharedAnswer: { changedBy: [...headChanges, 'traced', 'verification'] } },
    },
    async () => {
      const [timing, items] = await Promise.all([
        readChainTiming(db),
        listMinedTransactions(db, { kinds: [], selectors: [] }, null, homeTransactions),
      ]);
      return listedTransactions(db, items, timing);
    },
  );
};
