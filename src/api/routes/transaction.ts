import { Type } from '@sinclair/typebox';
import type { Hex } from '../../model.js';
import { readChainTiming } from '../../store/read/chain.js';
import { readCoinMarket } from '../../store/read/market.js';
import { firstTransactionTokenTransfers } from '../../store/read/token-transfers.js';
import { findTransaction } from '../../store/read/transactions.js';
import { readAuthorizations, readBlobFields } from '../../store/read/typed-transactions.js';
import { decodeTransaction } from '../contract-decoding.js';
import { NotFoundError } from '../errors.js';
import type { ApiRoute } from '../route.js';
import { FullHashParam } from '../schemas.js';
import { TransactionDetailSchema, embeddedTransfersCount, transactionDetailView } from '../views/transaction.js';

const Params = Type.Object({ transaction_hash: FullHashParam });

/** A transaction's page: mined or in the pool, with its first token transfers. */
export const transactionRoute: ApiRoute = (app, { db }) => {
  const schema = { params: Params, response: { 200: TransactionDetailSchema } };
  app.get('/api/v2/transactions/:transaction_hash', { schema }, async (request) => {
    const hash = request.params.transaction_hash.toLowerCase() as Hex;
    const item = await findTransaction(db, hash);
    if (item === null) throw new NotFoundError();
    if (item.blockNumber === null) {
      // A pool transaction has transferred nothing yet; confirmations and their timing do not apply, and
      // its blob fields and authorizations are kept once it is mined.
      const [decoded, coin] = await Promise.all([decodeTransaction(db, item), readCoinMarket(db)]);
      const parts = { transfers: [], blob: null, authorizations: [], decoded, exchangeRate: coin?.fiatValue ?? null };
      return transactionDetailView(item, { head: null, averageBlockTimeMs: null }, parts);
    }
    const [timing, transfers, blob, authorizations, decoded, coin] = await Promise.all([
      readChainTiming(db),
      firstTransactionTokenTransfers(db, { hash, blockNumber: item.blockNumber, index: item.index }, embeddedTransfersCount + 1),
      item.type === 3 ? readBlobFields(db, hash) : null,
      item.type === 4 ? readAuthorizations(db, hash) : [],
      decodeTransaction(db, item),
      readCoinMarket(db),
    ]);
    const exchangeRate = coin?.fiatValue ?? null;
    return transactionDetailView(item, timing, { transfers, blob, authorizations, decoded, exchangeRate });
  });
};
