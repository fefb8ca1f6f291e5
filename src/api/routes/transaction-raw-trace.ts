import { Type } from '@sinclair/typebox';
import type { Hex } from '../../model.js';
import { readTransactionTrace } from '../../store/read/internal-transactions.js';
import { isTransactionFinal } from '../../store/read/finality.js';
import { cacheAsFinal } from '../caching.js';
import { NotFoundError } from '../errors.js';
import type { ApiRoute } from '../route.js';
import { FullHashParam } from '../schemas.js';
import { RawTraceEntrySchema, rawTraceView } from '../views/raw-trace.js';

const Params = Type.Object({ transaction_hash: FullHashParam });

/**
 * E6: the transaction's trace in Parity's shape; [] for a pool transaction or one not traced yet. A
 * trace (frames stored: the block is traced) of a final block is final.
 */
export const transactionRawTraceRoute: ApiRoute = (app, { db, finalityDepth }) => {
  const schema = { params: Params, response: { 200: Type.Array(RawTraceEntrySchema) } };
  app.get('/api/v2/transactions/:transaction_hash/raw-trace', { schema }, async (request, reply) => {
    const hash = request.params.transaction_hash.toLowerCase() as Hex;
    const trace = await readTransactionTrace(db, hash);
    if (trace === null) throw new NotFoundError();
    if (Array.isArray(trace) && trace.length > 0 && finalityDepth !== null && (await isTransactionFinal(db, hash, finalityDepth))) {
      cacheAsFinal(reply);
    }
    return trace === 'pending' ? [] : rawTraceView(trace);
  });
};
