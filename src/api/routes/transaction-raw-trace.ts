import { Type } from '@sinclair/typebox';
import type { Hex } from '../../model.js';
import { readTransactionTrace } from '../../store/read/internal-transactions.js';
import { NotFoundError } from '../errors.js';
import type { ApiRoute } from '../route.js';
import { FullHashParam } from '../schemas.js';
import { RawTraceEntrySchema, rawTraceView } from '../views/raw-trace.js';

const Params = Type.Object({ transaction_hash: FullHashParam });

/** E6: the transaction's trace in Parity's shape; [] for a pool transaction or one not traced yet. */
export const transactionRawTraceRoute: ApiRoute = (app, { db }) => {
  const schema = { params: Params, response: { 200: Type.Array(RawTraceEntrySchema) } };
  app.get('/api/v2/transactions/:transaction_hash/raw-trace', { schema }, async (request) => {
    const trace = await readTransactionTrace(db, request.params.transaction_hash.toLowerCase() as Hex);
    if (trace === null) throw new NotFoundError();
    return trace === 'pending' ? [] : rawTraceView(trace);
  });
};
